import type { Argv } from './args.js';
import { parseAesKey } from '../crypto/aes.js';
import { KeyRing } from '../mount/keys.js';
import { codecsWithNativeOodle } from '../codecs/native.js';
import type { CodecRegistry } from '../codecs/registry.js';

export interface KeyArgs {
  'aes-key'?: string;
  keys?: string;
  'oodle-lib'?: string;
}

/** Codecs for a command: the built-ins, with a native Oodle library from --oodle-lib or OODLE_LIB when given. */
export function cliCodecs(args: { 'oodle-lib'?: string }): Promise<CodecRegistry> {
  return codecsWithNativeOodle(args['oodle-lib'] ?? process.env.OODLE_LIB ?? undefined);
}

export function withKeyOptions(y: Argv): Argv {
  return y
    .option('aes-key', { type: 'string', describe: 'AES-256 key (64 hex digits, 0x optional, or base64) for encrypted containers' })
    .option('keys', { type: 'string', describe: 'JSON file of encryption-key GUID -> AES key, for containers with different keys' });
}

export async function keyRing(args: KeyArgs): Promise<KeyRing> {
  const ring = args.keys ? await KeyRing.fromFile(args.keys) : new KeyRing();
  if (args['aes-key']) ring.add(parseAesKey(args['aes-key']));
  return ring;
}
