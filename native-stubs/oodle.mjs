// Optional binding to an Oodle library the user already has (oo2core_9_win64.dll, liboo2corelinux64.so.9, ...),
// through koffi. Nothing here ships or downloads Oodle: the path comes from --oodle-lib or OODLE_LIB.
// Used in place of the TypeScript decoder when given (it is faster and covers LZNA).

/**
 * Loads `OodleLZ_Decompress` from a shared library and returns a codec for the registry.
 * Signature (Oodle 2.9): SINTa OodleLZ_Decompress(const void* comp, SINTa compLen, void* raw, SINTa rawLen,
 *   int fuzzSafe, int checkCRC, int verbosity, void* decBufBase, SINTa decBufSize, void* callback,
 *   void* callbackUserData, void* decoderMemory, SINTa decoderMemorySize, int threadPhase)
 * and returns the number of bytes decoded, 0 on failure.
 */
export async function loadOodleLibrary(path) {
  let koffi;
  try {
    koffi = (await import('koffi')).default;
  } catch {
    throw Object.assign(new Error('the koffi package is not installed: run npm install koffi to use --oodle-lib'), { code: 'CODEC' });
  }
  let lib;
  try {
    lib = koffi.load(path);
  } catch (e) {
    throw Object.assign(new Error(`cannot load the Oodle library ${path}: ${e.message}`), { code: 'NOT_FOUND' });
  }
  const decompress = lib.func(
    'intptr_t OodleLZ_Decompress(const void *comp, intptr_t compLen, _Out_ void *raw, intptr_t rawLen, int fuzzSafe, int checkCRC, int verbosity, void *decBufBase, intptr_t decBufSize, void *cb, void *cbData, void *decoderMemory, intptr_t decoderMemorySize, int threadPhase)',
  );
  return {
    name: 'Oodle',
    decompress(src, size) {
      const out = new Uint8Array(size);
      // fuzzSafe = 1: the library checks the stream instead of trusting it; threadPhase 3 = all phases.
      const n = Number(decompress(src, src.length, out, size, 1, 0, 0, null, 0, null, null, null, 0, 3));
      if (n !== size) throw Object.assign(new Error(`Oodle library: block decoded to ${n} bytes, expected ${size}`), { code: 'CODEC' });
      return out;
    },
  };
}
