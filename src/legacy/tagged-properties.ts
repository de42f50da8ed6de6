/**
 * Where the tagged properties at the start of an export's data end (UE5 1012+ property tags: name, complete type
 * name tree, size, flags), so that the script-serialization offsets of 1010+ tagged-property packages can be
 * restored. Returns undefined when the bytes do not walk cleanly to a `None` tag; callers fall back then.
 */
export function taggedPropertiesEnd(data: Uint8Array, names: readonly string[], ue5: number): number | undefined {
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let pos = 0;
  const need = (n: number) => pos + n <= data.length;
  const u8 = (): number | undefined => (need(1) ? data[pos++] : undefined);
  const i32 = (): number | undefined => {
    if (!need(4)) return undefined;
    const x = v.getInt32(pos, true);
    pos += 4;
    return x;
  };
  const name = (): string | undefined => {
    const index = i32();
    const number = i32();
    if (index === undefined || number === undefined || index < 0 || index >= names.length || number < 0) return undefined;
    return names[index];
  };
  // 1011+: a serialization-control byte; bit 1 adds the overridable operation byte.
  if (ue5 >= 1011) {
    const ext = u8();
    if (ext === undefined || ext > 3) return undefined;
    if (ext & 2 && u8() === undefined) return undefined;
  }
  for (let tags = 0; tags < 1_000_000; tags++) {
    const n = name();
    if (n === undefined) return undefined;
    if (n === 'None') return pos;
    let pending = 1;
    for (let nodes = 0; pending > 0; nodes++) {
      if (nodes > 4096 || name() === undefined) return undefined;
      const inner = i32();
      if (inner === undefined || inner < 0) return undefined;
      pending += inner - 1;
    }
    const size = i32();
    const flags = u8();
    if (size === undefined || size < 0 || flags === undefined || flags > 0x3f) return undefined;
    if (flags & 0x01 && i32() === undefined) return undefined; // array index
    if (flags & 0x02) pos += 16; // property GUID
    if (flags & 0x04) {
      const ext = u8();
      if (ext === undefined) return undefined;
      if (ext & 0x02 && u8() === undefined) return undefined; // overridable operation
    }
    pos += size;
    if (pos > data.length) return undefined;
  }
  return undefined;
}
