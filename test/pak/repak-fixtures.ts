/** The engine paks of the corpus folder pak-repak/ (UnrealPak of UE 4.20-4.25), relative to the corpus root. */
export const REPAK_VERSIONS = ['v5', 'v7', 'v8a', 'v8b', 'v9'] as const;
export const REPAK_VARIANTS = [
  '',
  '_compress',
  '_compress_encrypt',
  '_compress_encrypt_encryptindex',
  '_compress_encryptindex',
  '_encrypt',
  '_encrypt_encryptindex',
  '_encryptindex',
] as const;
export const REPAK_PAKS: readonly string[] = REPAK_VERSIONS.flatMap((v) => REPAK_VARIANTS.map((s) => `pak-repak/packs/pack_${v}${s}.pak`));
