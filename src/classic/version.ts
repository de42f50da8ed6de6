/** The tag every Unreal package starts with (little-endian u32 `C1 83 2A 9E`), classic and later alike. */
export const CLASSIC_PACKAGE_TAG = 0x9e2a83c1;

/**
 * File versions of classic (Unreal Engine 1 and 2) packages that change the tables this reader parses. The u32
 * after the tag holds the file version in its low 16 bits and the licensee version in its high 16 bits.
 */
export const ClassicVersion = {
  /** Oldest version read: Unreal (1998) era; names are NUL-terminated strings; a heritage table of GUIDs. */
  Oldest: 61,
  /** Names gain a compact-index length prefix (counting the NUL). */
  NameLengthPrefix: 64,
  /** The heritage count and offset give way to the package GUID and a list of generations. */
  GuidAndGenerations: 68,
  /** Unreal Tournament (UT99), the version of the corpus packages. */
  UT99: 69,
  /** Newest version read: the end of Unreal Engine 2 (UT2004 writes 128). Unreal Engine 3 changed the tables. */
  Newest: 129,
} as const;

/**
 * True when `bytes` start like a classic package: the tag, then a positive file version in the classic range.
 * The tag alone does not decide: UE3 packages carry larger versions and UE4/UE5 packages a negative one.
 */
export function isClassicPackage(bytes: Uint8Array): boolean {
  if (bytes.length < 8) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 8);
  if (view.getUint32(0, true) !== CLASSIC_PACKAGE_TAG) return false;
  const word = view.getInt32(4, true);
  const fileVersion = word & 0xffff;
  return word > 0 && fileVersion >= ClassicVersion.Oldest && fileVersion <= ClassicVersion.Newest;
}
