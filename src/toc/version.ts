/** EIoStoreTocVersion: each value names what it added to the .utoc layout. */
export const TocVersion = {
  Invalid: 0,
  Initial: 1, // 4.25-era experimental layout: the 144-byte header, ids, offsets, blocks, metas
  DirectoryIndex: 2, // 4.26: the directory index section (mount point, directories, files, strings)
  PartitionSize: 3, // 4.27: PartitionCount/PartitionSize, `_sN.ucas` partitions
  PerfectHash: 4, // UE5 pre-release: perfect-hash seeds after the offsets
  PerfectHashWithOverflow: 5, // 5.0-5.3: + indices of chunks the perfect hash could not place
  OnDemandMetaData: 6, // 5.4: per-chunk and per-block disk hashes after the metas when flag OnDemand
  RemovedOnDemandMetaData: 7, // 5.5 development: the on-demand arrays are gone again
  ReplaceIoChunkHashWithIoHash: 8, // 5.5-5.8: chunk meta = 20-byte FIoHash + flags + 3 pad (24 bytes)
  AddedSourceHashes: 9, // post-5.8: header field TocSourceHashCount and a source-hash array
  ContainerEncryptionMethod: 10, // "6.0": header byte 0x51 = encryption method; AES-CTR IVs after the blocks
} as const;

export const LATEST_TOC_VERSION = TocVersion.ContainerEncryptionMethod;

const VERSION_NAMES = Object.fromEntries(Object.entries(TocVersion).map(([k, v]) => [v, k])) as Record<number, string>;

export function tocVersionName(v: number): string {
  return VERSION_NAMES[v] ?? `Unknown(${v})`;
}

/** EIoContainerFlags. */
export const ContainerFlags = {
  Compressed: 0x01,
  Encrypted: 0x02,
  Signed: 0x04,
  Indexed: 0x08,
  OnDemand: 0x10,
} as const;

export function containerFlagNames(flags: number): string[] {
  const names = Object.entries(ContainerFlags)
    .filter(([, bit]) => (flags & bit) !== 0)
    .map(([name]) => name);
  const unknown = flags & ~0x1f;
  if (unknown) names.push(`0x${unknown.toString(16)}`);
  return names;
}

/** Header byte 0x51 from TOC v10 on. */
export const EncryptionMethod = { None: 0, AesEcb: 1, AesCtr: 2 } as const;
export type EncryptionMethodValue = (typeof EncryptionMethod)[keyof typeof EncryptionMethod];

export function encryptionMethodName(m: number): string {
  return m === 0 ? 'None' : m === 1 ? 'AES-ECB' : m === 2 ? 'AES-CTR' : `Unknown(${m})`;
}
