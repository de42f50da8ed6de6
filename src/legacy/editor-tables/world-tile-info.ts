import type { ByteReader } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';
import { UE5_LEGACY_VERSION as V5 } from '../versions.js';
import { EDITOR_TABLE_UE4 as V, FORTNITE_MAIN, type EditorTableFormat } from './format.js';
import { readBool, readCount, writeBool, writeFString } from './primitives.js';

type Vec3 = [number, number, number];

/** FWorldTileLODInfo. */
export interface LegacyWorldTileLod {
  relativeStreamingDistance: number;
  reserved0: number;
  reserved1: number;
  reserved2: number;
  reserved3: number;
}

/**
 * FWorldTileInfo (UE4 224+, world composition levels): the tile's position and bounds, its layer, and (by version)
 * its hidden flag and parent, LOD list and Z order. Fields a version does not store are absent.
 */
export interface LegacyWorldTileInfo {
  /** FIntVector; FIntPoint before FFortniteMainBranchObjectVersion 1 (z then 0 and not stored). */
  position: Vec3;
  bounds: { min: Vec3; max: Vec3; isValid: number };
  layer: { name: string; reserved0: number; reserved1: [number, number]; streamingDistance?: number; distanceStreamingEnabled?: boolean };
  hideInTileView?: boolean;
  parentTilePackageName?: string;
  lodList?: LegacyWorldTileLod[];
  zOrder?: number;
}

/** Which optional parts a version stores; `position3d` and `doubles` can be forced (the bytes decide unknowns). */
interface TileShape {
  position3d: boolean;
  doubles: boolean;
  updated: boolean;
  lods: boolean;
  zOrder: boolean;
  distanceStreaming: boolean;
}

function shape(f: EditorTableFormat, position3d: boolean): TileShape {
  return {
    position3d,
    doubles: f.ue5 >= V5.LargeWorldCoordinates,
    updated: f.ue4 >= V.WorldLevelInfoUpdated,
    lods: f.ue4 >= V.WorldLevelInfoLodList,
    zOrder: f.ue4 >= V.WorldLevelInfoZOrder,
    distanceStreaming: f.ue4 >= V.WorldLayerEnableDistanceStreaming,
  };
}

function readWith(r: ByteReader, s: TileShape): LegacyWorldTileInfo {
  const real = () => (s.doubles ? readF64(r) : readF32(r));
  const position: Vec3 = [r.i32('tile position'), r.i32('tile position'), s.position3d ? r.i32('tile position') : 0];
  const bounds = { min: [real(), real(), real()] as Vec3, max: [real(), real(), real()] as Vec3, isValid: r.u8('tile bounds valid flag') };
  const layer: LegacyWorldTileInfo['layer'] = { name: r.fstring('tile layer name'), reserved0: r.i32('tile layer'), reserved1: [r.i32('tile layer'), r.i32('tile layer')] };
  if (s.updated) layer.streamingDistance = r.i32('tile layer streaming distance');
  if (s.distanceStreaming) layer.distanceStreamingEnabled = readBool(r, 'tile layer distance streaming');
  const out: LegacyWorldTileInfo = { position, bounds, layer };
  if (s.updated) {
    out.hideInTileView = readBool(r, 'tile hidden flag');
    out.parentTilePackageName = r.fstring('tile parent package');
  }
  if (s.lods) {
    const n = readCount(r, 20, 'tile LODs');
    out.lodList = [];
    for (let i = 0; i < n; i++) out.lodList.push({ relativeStreamingDistance: r.i32('tile LOD'), reserved0: readF32(r), reserved1: readF32(r), reserved2: r.i32('tile LOD'), reserved3: r.i32('tile LOD') });
  }
  if (s.zOrder) out.zOrder = r.i32('tile Z order');
  return out;
}

function readF32(r: ByteReader): number {
  r.need(4, 'float');
  const v = r.view.getFloat32(r.pos, true);
  r.pos += 4;
  return v;
}

function readF64(r: ByteReader): number {
  r.need(8, 'double');
  const v = r.view.getFloat64(r.pos, true);
  r.pos += 8;
  return v;
}

/**
 * Reads the world tile info at `r.pos`, and says which position form it has. Where the package does not say
 * whether positions are 2D or 3D (an unversioned UE 4.19/4.20 package), the form that ends at `end` (the next table)
 * is taken.
 */
export function readWorldTileInfo(r: ByteReader, f: EditorTableFormat, end: number): { tile: LegacyWorldTileInfo; position3d: boolean } {
  const known = f.fortniteMain;
  if (known !== undefined) {
    const position3d = known >= FORTNITE_MAIN.WorldCompositionTile3DOffset;
    return { tile: readWith(r, shape(f, position3d)), position3d };
  }
  const start = r.pos;
  for (const position3d of [true, false]) {
    r.pos = start;
    try {
      const tile = readWith(r, shape(f, position3d));
      if (r.pos === end) return { tile, position3d };
    } catch {
      // the other form may fit
    }
  }
  r.pos = start;
  return { tile: readWith(r, shape(f, true)), position3d: true };
}

export function writeWorldTileInfo(w: ByteWriter, t: LegacyWorldTileInfo, f: EditorTableFormat): void {
  const s = shape(f, (f.fortniteMain ?? FORTNITE_MAIN.WorldCompositionTile3DOffset) >= FORTNITE_MAIN.WorldCompositionTile3DOffset);
  const real = (v: number) => (s.doubles ? f64(w, v) : f32(w, v));
  w.i32(t.position[0]);
  w.i32(t.position[1]);
  if (s.position3d) w.i32(t.position[2]);
  for (const v of [...t.bounds.min, ...t.bounds.max]) real(v);
  w.u8(t.bounds.isValid);
  writeFString(w, t.layer.name);
  w.i32(t.layer.reserved0);
  w.i32(t.layer.reserved1[0]);
  w.i32(t.layer.reserved1[1]);
  if (s.updated) w.i32(t.layer.streamingDistance ?? 0);
  if (s.distanceStreaming) writeBool(w, t.layer.distanceStreamingEnabled ?? true);
  if (s.updated) {
    writeBool(w, t.hideInTileView ?? false);
    writeFString(w, t.parentTilePackageName ?? '');
  }
  if (s.lods) {
    const lods = t.lodList ?? [];
    w.i32(lods.length);
    for (const l of lods) {
      w.i32(l.relativeStreamingDistance);
      f32(w, l.reserved0);
      f32(w, l.reserved1);
      w.i32(l.reserved2);
      w.i32(l.reserved3);
    }
  }
  if (s.zOrder) w.i32(t.zOrder ?? 0);
}

const SCRATCH = new DataView(new ArrayBuffer(8));
function f32(w: ByteWriter, v: number): void {
  SCRATCH.setFloat32(0, v, true);
  w.u32(SCRATCH.getUint32(0, true));
}
function f64(w: ByteWriter, v: number): void {
  SCRATCH.setFloat64(0, v, true);
  w.u32(SCRATCH.getUint32(0, true));
  w.u32(SCRATCH.getUint32(4, true));
}
