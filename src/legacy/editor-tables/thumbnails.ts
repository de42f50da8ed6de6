import type { ByteReader } from '../../util/bytes.js';
import type { ByteWriter } from '../../zen/byte-writer.js';
import { imageType } from './image-size.js';
import { readCount, writeFString } from './primitives.js';

/**
 * One thumbnail of the thumbnail table: the object it shows (class short name and path below the package, as the
 * index stores them) and its FObjectThumbnail, the image as the editor compressed it (PNG, or JPEG where the stored
 * height is negative: UE 5.x editors save JPEG thumbnails).
 */
export interface LegacyThumbnail {
  objectClass: string;
  objectPath: string;
  width: number;
  /** The image height (the stored one is negated for JPEG). */
  height: number;
  /** The stored height was negative: the image is a JPEG. */
  jpeg: boolean;
  /** The compressed image: a PNG or JPEG file as it is (empty for an empty thumbnail). */
  data: Uint8Array;
  /** Where the FObjectThumbnail lies in the `.uasset` (the index's file offset). */
  offset: number;
}

/** The image kind of a thumbnail by its bytes ('png', 'jpeg'), or undefined for an empty or unknown one. */
export function thumbnailImageType(t: LegacyThumbnail): 'png' | 'jpeg' | undefined {
  return imageType(t.data);
}

/**
 * The thumbnail table: at ThumbnailTableOffset the index (i32 count; per thumbnail the class name and object path
 * as FStrings and an i32 file offset), each offset naming an FObjectThumbnail (i32 width, i32 height, the image as a
 * counted byte array) that the engine writes before the index, in index order. `r` is over the whole `.uasset`.
 * Returns the thumbnails and where the index ends.
 */
export function readThumbnails(r: ByteReader, tableOffset: number): { thumbnails: LegacyThumbnail[]; indexEnd: number } {
  r.pos = tableOffset;
  const n = readCount(r, 12, 'thumbnails');
  const index: Array<{ objectClass: string; objectPath: string; offset: number }> = [];
  for (let i = 0; i < n; i++) {
    const objectClass = r.fstring('thumbnail class');
    const objectPath = r.fstring('thumbnail object path');
    const at = r.pos;
    const offset = r.i32('thumbnail file offset');
    if (offset < 0 || offset + 12 > r.bytes.length) r.fail('BAD_VALUE', `thumbnail ${i} (${objectPath}) at ${offset} lies outside the ${r.bytes.length}-byte file`, at);
    index.push({ objectClass, objectPath, offset });
  }
  const indexEnd = r.pos;
  const thumbnails = index.map((e) => {
    r.pos = e.offset;
    const width = r.i32('thumbnail width');
    const stored = r.i32('thumbnail height');
    const size = readCount(r, 1, 'thumbnail image bytes');
    return { ...e, width, height: Math.abs(stored), jpeg: stored < 0, data: r.bytesView(size, 'thumbnail image') };
  });
  r.pos = indexEnd;
  return { thumbnails, indexEnd };
}

/** Where the images lie when the engine's layout holds: back to back in index order, ending at the index. */
export function thumbnailImagesSpan(list: readonly LegacyThumbnail[], tableOffset: number): { offset: number; size: number } | undefined {
  if (list.length === 0) return { offset: tableOffset, size: 0 };
  let at = list[0]!.offset;
  for (const t of list) {
    if (t.offset !== at) return undefined;
    at += 12 + t.data.length;
  }
  return at === tableOffset ? { offset: list[0]!.offset, size: at - list[0]!.offset } : undefined;
}

/** Writes each FObjectThumbnail; returns where each went (`base` + the writer's length is the file offset). */
export function writeThumbnailImages(w: ByteWriter, list: readonly LegacyThumbnail[], base: number): number[] {
  return list.map((t) => {
    const at = base + w.length;
    w.i32(t.width);
    w.i32(t.jpeg ? -t.height : t.height);
    w.i32(t.data.length);
    w.bytes(t.data);
    return at;
  });
}

export function writeThumbnailIndex(w: ByteWriter, list: readonly LegacyThumbnail[], offsets: readonly number[]): void {
  w.i32(list.length);
  list.forEach((t, i) => {
    writeFString(w, t.objectClass);
    writeFString(w, t.objectPath);
    w.i32(offsets[i] ?? t.offset);
  });
}

/**
 * File names for the thumbnails, one per thumbnail and all different (case ignored): the object path with every
 * character a file system may refuse replaced by `_`, the extension of the image's kind (`.png`, `.jpg`; `.bin` when
 * the bytes are neither), a `-2`, `-3` ... before it for repeats. Never a path: no separators, no leading dot, no
 * device name.
 */
export function thumbnailFileNames(list: readonly LegacyThumbnail[]): string[] {
  const used = new Set<string>();
  return list.map((t, i) => {
    let stem = t.objectPath
      .replace(/[^A-Za-z0-9_.\- ]/g, '_')
      .slice(0, 120)
      .replace(/^[. ]+|[. ]+$/g, '');
    if (stem === '' || /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i.test(stem)) stem = `thumbnail_${i}${stem === '' ? '' : `_${stem}`}`;
    const type = thumbnailImageType(t);
    const ext = type === 'png' ? '.png' : type === 'jpeg' ? '.jpg' : '.bin';
    let name = `${stem}${ext}`;
    for (let k = 2; used.has(name.toLowerCase()); k++) name = `${stem}-${k}${ext}`;
    used.add(name.toLowerCase());
    return name;
  });
}
