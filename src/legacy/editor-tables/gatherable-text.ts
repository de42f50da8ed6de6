import type { ByteReader } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';
import { readBool, readCount, writeBool, writeFString } from './primitives.js';

/** FLocMetadataValue: ELocMetadataType (i32: 1 boolean, 2 string, 3 array, 4 object) and the value. */
export type LegacyLocMetadataValue =
  | { type: 'boolean'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; value: LegacyLocMetadataValue[] }
  | { type: 'object'; value: LegacyLocMetadata };

/** FLocMetadataObject: its values by key, in stored order. */
export type LegacyLocMetadata = Array<{ key: string; value: LegacyLocMetadataValue }>;

/** FTextSourceSiteContext: where a text is used (its key, the property path) and its flags. */
export interface LegacyTextSourceSite {
  key: string;
  siteDescription: string;
  editorOnly: boolean;
  optional: boolean;
  infoMetaData: LegacyLocMetadata;
  keyMetaData: LegacyLocMetadata;
}

/** FGatherableTextData: one localizable source string, its namespace, and the places that use it. */
export interface LegacyGatherableText {
  namespace: string;
  sourceString: string;
  sourceMetaData: LegacyLocMetadata;
  sites: LegacyTextSourceSite[];
}

const TYPES = ['boolean', 'string', 'array', 'object'] as const;
/** Metadata nests objects in objects: deeper than this is a damaged table, not a document. */
const MAX_DEPTH = 64;

function readValue(r: ByteReader, depth: number): LegacyLocMetadataValue {
  const at = r.pos;
  const t = r.i32('localization metadata type');
  const type = TYPES[t - 1];
  if (type === undefined) r.fail('BAD_VALUE', `localization metadata type ${t} is not one (1 boolean, 2 string, 3 array, 4 object)`, at);
  if (depth > MAX_DEPTH) r.fail('BAD_VALUE', `localization metadata nests deeper than ${MAX_DEPTH} levels`, at);
  switch (type) {
    case 'boolean':
      return { type, value: readBool(r, 'localization metadata boolean') };
    case 'string':
      return { type, value: r.fstring('localization metadata string') };
    case 'array': {
      const n = readCount(r, 4, 'localization metadata array');
      const value: LegacyLocMetadataValue[] = [];
      for (let i = 0; i < n; i++) value.push(readValue(r, depth + 1));
      return { type, value };
    }
    case 'object':
      return { type, value: readMetadata(r, depth + 1) };
  }
}

function readMetadata(r: ByteReader, depth = 0): LegacyLocMetadata {
  const n = readCount(r, 8, 'localization metadata');
  const out: LegacyLocMetadata = [];
  for (let i = 0; i < n; i++) out.push({ key: r.fstring('localization metadata key'), value: readValue(r, depth) });
  return out;
}

function writeValue(w: ByteWriter, v: LegacyLocMetadataValue): void {
  w.i32(TYPES.indexOf(v.type) + 1);
  switch (v.type) {
    case 'boolean':
      writeBool(w, v.value);
      return;
    case 'string':
      writeFString(w, v.value);
      return;
    case 'array':
      w.i32(v.value.length);
      for (const e of v.value) writeValue(w, e);
      return;
    case 'object':
      writeMetadata(w, v.value);
  }
}

function writeMetadata(w: ByteWriter, m: LegacyLocMetadata): void {
  w.i32(m.length);
  for (const e of m) {
    writeFString(w, e.key);
    writeValue(w, e.value);
  }
}

/** The gatherable text table (UE4 459+): `count` entries at the cursor. */
export function readGatherableText(r: ByteReader, count: number): LegacyGatherableText[] {
  r.needArray(count, 16, 'gatherable text');
  const out: LegacyGatherableText[] = [];
  for (let i = 0; i < count; i++) {
    const namespace = r.fstring('text namespace');
    const sourceString = r.fstring('text source string');
    const sourceMetaData = readMetadata(r);
    const n = readCount(r, 24, 'text source sites');
    const sites: LegacyTextSourceSite[] = [];
    for (let k = 0; k < n; k++) {
      sites.push({
        key: r.fstring('text key'),
        siteDescription: r.fstring('text site description'),
        editorOnly: readBool(r, 'text editor-only flag'),
        optional: readBool(r, 'text optional flag'),
        infoMetaData: readMetadata(r),
        keyMetaData: readMetadata(r),
      });
    }
    out.push({ namespace, sourceString, sourceMetaData, sites });
  }
  return out;
}

export function writeGatherableText(w: ByteWriter, list: readonly LegacyGatherableText[]): void {
  for (const t of list) {
    writeFString(w, t.namespace);
    writeFString(w, t.sourceString);
    writeMetadata(w, t.sourceMetaData);
    w.i32(t.sites.length);
    for (const s of t.sites) {
      writeFString(w, s.key);
      writeFString(w, s.siteDescription);
      writeBool(w, s.editorOnly);
      writeBool(w, s.optional);
      writeMetadata(w, s.infoMetaData);
      writeMetadata(w, s.keyMetaData);
    }
  }
}
