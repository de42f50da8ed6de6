import { IoStoreError } from '../errors.js';
import type { Codec } from './codec.js';
import { runnableUrl } from '../util/worker-pool.js';
import { defaultCodecs, type CodecRegistry } from './registry.js';

/**
 * An Oodle codec backed by a native library the user supplies (see native-stubs/oodle.mjs). The binding lives outside
 * src so the library stays pure TypeScript for hosts without native code.
 */
export async function loadNativeOodle(libraryPath: string): Promise<Codec> {
  const url = new URL('../../native-stubs/oodle.mjs', import.meta.url);
  const mod = (await import(url.href)) as { loadOodleLibrary(path: string): Promise<Codec> };
  let codec: Codec;
  try {
    codec = await mod.loadOodleLibrary(libraryPath);
  } catch (e) {
    const err = e as Error & { code?: string };
    throw new IoStoreError(err.code === 'NOT_FOUND' ? 'NOT_FOUND' : 'CODEC', err.message, { file: libraryPath });
  }
  return {
    name: codec.name,
    recipe: { module: runnableUrl(import.meta.url, import.meta.url).href, factory: 'loadNativeOodle', args: [libraryPath] },
    decompress(src, size) {
      try {
        return codec.decompress(src, size);
      } catch (e) {
        throw new IoStoreError('CODEC', (e as Error).message);
      }
    },
  };
}

/** The built-in codecs, with Oodle from a native library when a path is given. */
export async function codecsWithNativeOodle(libraryPath: string | undefined): Promise<CodecRegistry> {
  const r = defaultCodecs();
  if (libraryPath) r.register(await loadNativeOodle(libraryPath));
  return r;
}
