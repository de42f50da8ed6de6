/* A stand-in for an Oodle library, built by the test suite to exercise the koffi binding for real.
 * It exports OodleLZ_Decompress with Oodle's signature; its "format" repeats the compressed bytes XOR 0x5A to fill
 * the output, and a stream starting with 0xFF fails (returns 0), as a corrupt stream does in Oodle. */
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

EXPORT intptr_t OodleLZ_Decompress(const void *comp, intptr_t compLen, void *raw, intptr_t rawLen, int fuzzSafe,
                                   int checkCRC, int verbosity, void *decBufBase, intptr_t decBufSize, void *cb,
                                   void *cbData, void *decoderMemory, intptr_t decoderMemorySize, int threadPhase) {
  const unsigned char *in = (const unsigned char *)comp;
  unsigned char *out = (unsigned char *)raw;
  (void)checkCRC; (void)verbosity; (void)decBufBase; (void)decBufSize; (void)cb; (void)cbData;
  (void)decoderMemory; (void)decoderMemorySize;
  if (compLen <= 0 || in[0] == 0xFF || fuzzSafe != 1 || threadPhase != 3) return 0;
  for (intptr_t i = 0; i < rawLen; i++) out[i] = in[i % compLen] ^ 0x5A;
  return rawLen;
}
