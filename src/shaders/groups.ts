import { createHash } from 'node:crypto';
import type { LegacyShaderLibrary, LegacyShaderEntry, ZenShaderGroupEntry, ZenShaderEntry } from './library.js';

/**
 * How the engine (UnrealPak's shader-library conversion, FIoStoreShaderCodeArchive::CreateIoStoreShaderCodeArchiveHeader)
 * gathers the shaders of a legacy library into IoStore groups, so that a converted library has the engine's groups
 * and ShaderCode chunk ids:
 * 1. each shader is keyed by the sorted set of shader maps that reference it; shaders are sorted by (set size, the
 *    sets element by element, shader index) and each run of one set is a candidate group;
 * 2. for the PCD3D_SM5 format only, a candidate is split into its non-ray-tracing and ray-tracing shaders;
 * 3. a candidate whose code exceeds 1 MiB (r.ShaderCodeLibrary.MaxShaderGroupSize's default) and holds more than one
 *    shader is spread over ceil-ish(size / 1 MiB + 1) groups, largest shader first, each to the smallest group;
 * 4. a group's shaders are ordered by (uncompressed size, stored size, frequency, offset), and its chunk id is the
 *    first 11 bytes of SHA-1(for each shader: hash, u32 uncompressed size; then the format name in UTF-8) followed
 *    by the ShaderCode chunk type;
 * 5. a group's indices reuse the first place the same sequence occurs in the legacy shader indices, else they are
 *    appended after them, in group order.
 */

/** r.ShaderCodeLibrary.MaxShaderGroupSize's default: UnrealPak sees no cvars, so this is the size it groups by. */
export const MAX_SHADER_GROUP_SIZE = 1024 * 1024;

/** SF_RayGen .. SF_RayCallable in every UE 4.26-5.x EShaderFrequency. */
function isRayTracing(frequency: number): boolean {
  return frequency >= 6 && frequency <= 9;
}

export interface ShaderGrouping {
  /** Each group's shaders, in the order their code lies in the group. */
  groups: number[][];
  groupEntries: ZenShaderGroupEntry[];
  /** The SHA-1 of each group (its chunk id is the first 11 bytes and the ShaderCode type). */
  groupHashes: Uint8Array[];
  shaderEntries: ZenShaderEntry[];
  /** The legacy indices followed by those groups that could not reuse a sequence of them. */
  shaderIndices: number[];
}

function compareEntries(a: LegacyShaderEntry, b: LegacyShaderEntry): number {
  return a.uncompressedSize - b.uncompressedSize || a.size - b.size || a.frequency - b.frequency || a.offset - b.offset;
}

type GroupSource = Pick<LegacyShaderLibrary, 'shaderMapEntries' | 'shaderEntries' | 'shaderHashes' | 'shaderIndices'>;

/** The groups the engine makes of a legacy library's shaders (see above); `compressedSize` is left 0. */
export function groupShaders(lib: GroupSource, format: string, maxGroupSize = MAX_SHADER_GROUP_SIZE): ShaderGrouping {
  const mapsOf = shaderMapsOf(lib);
  const groups = formGroups(lib.shaderEntries, mapsOf, format === 'PCD3D_SM5', maxGroupSize);
  const { shaderEntries, groupEntries, groupHashes } = describeGroups(lib, groups, format);
  const shaderIndices = placeGroupIndices(lib.shaderIndices, groups, groupEntries);
  return { groups, groupEntries, groupHashes, shaderEntries, shaderIndices };
}

/** For each shader, the sorted indices of the shader maps that use it. */
function shaderMapsOf(lib: GroupSource): number[][] {
  const mapsOf: number[][] = lib.shaderEntries.map(() => []);
  lib.shaderMapEntries.forEach((m, mapIndex) => {
    for (let k = m.shaderIndicesOffset; k < m.shaderIndicesOffset + m.numShaders; k++) mapsOf[lib.shaderIndices[k]!]!.push(mapIndex);
  });
  for (const maps of mapsOf) maps.sort((a, b) => a - b);
  return mapsOf;
}

/** Shaders used by the same set of maps form a candidate; each candidate is split by ray tracing (SM5) and by size. */
function formGroups(shaders: LegacyShaderLibrary['shaderEntries'], mapsOf: number[][], separateRayTracing: boolean, maxGroupSize: number): number[][] {
  const order = shaders.map((_, i) => i);
  order.sort((a, b) => {
    const A = mapsOf[a]!;
    const B = mapsOf[b]!;
    if (A.length !== B.length) return A.length - B.length;
    for (let k = 0; k < A.length; k++) if (A[k] !== B[k]) return A[k]! - B[k]!;
    return a - b;
  });
  const groups: number[][] = [];
  const add = (members: number[]) => {
    members.sort((a, b) => compareEntries(shaders[a]!, shaders[b]!));
    groups.push(members);
  };
  const splitBySize = (members: number[]) => {
    const total = members.reduce((s, i) => s + shaders[i]!.uncompressedSize, 0);
    if (total <= maxGroupSize || members.length === 1) return add(members);
    const n = Math.min(Math.floor(total / maxGroupSize) + 1, members.length);
    const parts: number[][] = Array.from({ length: n }, () => []);
    const sizes = new Array<number>(n).fill(0);
    members.sort((a, b) => compareEntries(shaders[b]!, shaders[a]!));
    for (const s of members) {
      let smallest = 0;
      for (let k = 1; k < n; k++) if (sizes[k]! < sizes[smallest]!) smallest = k;
      parts[smallest]!.push(s);
      sizes[smallest]! += shaders[s]!.uncompressedSize;
    }
    for (const p of parts) if (p.length > 0) add(p);
  };
  const candidate = (members: number[]) => {
    if (!separateRayTracing) return splitBySize(members);
    const plain = members.filter((s) => !isRayTracing(shaders[s]!.frequency));
    const rt = members.filter((s) => isRayTracing(shaders[s]!.frequency));
    if (plain.length > 0) splitBySize(plain);
    if (rt.length > 0) splitBySize(rt);
  };
  let run: number[] = [];
  let runSet: number[] | undefined;
  const sameSet = (a: number[], b: number[]) => a.length === b.length && a.every((x, k) => x === b[k]);
  for (const s of order) {
    if (runSet && !sameSet(runSet, mapsOf[s]!)) {
      candidate(run);
      run = [];
    }
    run.push(s);
    runSet = mapsOf[s]!;
  }
  if (run.length > 0) candidate(run);
  return groups;
}

/** Each shader's group and offset in it, each group's size and its hash (SHA-1 of its shaders' hashes and sizes, then the format). */
function describeGroups(lib: GroupSource, groups: number[][], format: string): Pick<ShaderGrouping, 'shaderEntries' | 'groupEntries' | 'groupHashes'> {
  const shaders = lib.shaderEntries;
  const shaderEntries: ZenShaderEntry[] = shaders.map((s) => ({ frequency: s.frequency, groupIndex: 0, offsetInGroup: 0 }));
  const groupHashes: Uint8Array[] = [];
  const groupEntries: ZenShaderGroupEntry[] = [];
  const formatBytes = new TextEncoder().encode(format);
  groups.forEach((members, g) => {
    // One buffer for the whole input: the browser build's SHA-1 keeps what it is given by reference.
    const input = new Uint8Array(members.length * 24 + formatBytes.length);
    const view = new DataView(input.buffer);
    let at = 0;
    members.forEach((s, k) => {
      shaderEntries[s] = { frequency: shaders[s]!.frequency, groupIndex: g, offsetInGroup: at };
      input.set(lib.shaderHashes[s]!, k * 24);
      view.setUint32(k * 24 + 20, shaders[s]!.uncompressedSize, true);
      at += shaders[s]!.uncompressedSize;
    });
    input.set(formatBytes, members.length * 24);
    const h = createHash('sha1');
    h.update(input);
    groupHashes.push(new Uint8Array(h.digest()));
    groupEntries.push({ shaderIndicesOffset: 0, numShaders: members.length, uncompressedSize: at, compressedSize: 0 });
  });
  return { shaderEntries, groupEntries, groupHashes };
}

/** Points each group at a run of the shader indices equal to its members, appending the run where there is none. */
function placeGroupIndices(indices: readonly number[], groups: number[][], groupEntries: ZenShaderGroupEntry[]): number[] {
  const shaderIndices = [...indices];
  const firstAt = new Map<number, number[]>();
  indices.forEach((s, k) => {
    const list = firstAt.get(s);
    if (list) list.push(k);
    else firstAt.set(s, [k]);
  });
  const find = (members: number[]): number => {
    for (const k of firstAt.get(members[0]!) ?? []) {
      if (k + members.length > indices.length) break;
      let ok = true;
      for (let j = 1; j < members.length && ok; j++) ok = indices[k + j] === members[j];
      if (ok) return k;
    }
    return -1;
  };
  groups.forEach((members, g) => {
    const at = find(members);
    if (at >= 0) groupEntries[g]!.shaderIndicesOffset = at;
    else {
      groupEntries[g]!.shaderIndicesOffset = shaderIndices.length;
      shaderIndices.push(...members);
    }
  });
  return shaderIndices;
}

/** The ShaderCode chunk id of a group hash: its first 11 bytes and the chunk type byte. */
export function shaderCodeChunkId(groupHash: Uint8Array, shaderCodeType: number): Uint8Array {
  const id = new Uint8Array(12);
  id.set(groupHash.subarray(0, 11));
  id[11] = shaderCodeType;
  return id;
}
