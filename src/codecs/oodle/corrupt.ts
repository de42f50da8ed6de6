import { IoStoreError } from '../../errors.js';

/**
 * Every failure of the Oodle decoder goes through here, so that callers see one error type and code whatever part
 * of the format turned out to be wrong.
 */
export function corrupt(what: string, where: number | string): never {
  const at = typeof where === 'number' ? `byte ${where}` : where;
  throw new IoStoreError('CODEC', `oodle: ${what} at ${at}`);
}
