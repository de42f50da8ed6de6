import { readFile } from 'node:fs/promises';
import { parseAesKey } from '../crypto/aes.js';
import { IoStoreError } from '../errors.js';
import { ioError } from '../toc/read-file.js';
import { quote } from '../util/quote.js';

const ZERO_GUID = '0'.repeat(32);

/** AES keys by encryption-key GUID (32 hex digits, upper case); the all-zero GUID is the game's default key. */
export class KeyRing {
  private readonly keys = new Map<string, Uint8Array>();

  /** Adds a key for a GUID (any case, with or without dashes/braces/0x); no GUID means the default key. */
  add(key: Uint8Array, guid: string = ZERO_GUID): this {
    this.keys.set(normalizeGuid(guid), key);
    return this;
  }

  /** The key for a container's GUID: its own, else the default one. */
  get(guidHex: string): Uint8Array | undefined {
    return this.keys.get(normalizeGuid(guidHex)) ?? this.keys.get(ZERO_GUID);
  }

  get size(): number {
    return this.keys.size;
  }

  /**
   * Reads `{ "<guid>": "<key>" }` (keys as hex or base64); also accepts the common
   * `{ "mainKey": "...", "dynamicKeys": { "<guid>": "..." } }` layout.
   */
  static async fromFile(path: string): Promise<KeyRing> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw ioError(e, path);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new IoStoreError('USAGE', `keys file is not valid JSON: ${(e as Error).message}`, { file: path });
    }
    if (!json || typeof json !== 'object') throw new IoStoreError('USAGE', 'keys file must hold a JSON object of GUID -> key', { file: path });
    const ring = new KeyRing();
    const add = (guid: string, key: unknown) => {
      if (typeof key !== 'string') throw new IoStoreError('USAGE', `key for ${quote(guid)} must be a string`, { file: path });
      try {
        ring.add(parseAesKey(key), guid);
      } catch (e) {
        throw new IoStoreError('BAD_KEY', `key for ${quote(guid)}: ${(e as Error).message}`, { file: path });
      }
    };
    const o = json as Record<string, unknown>;
    if ('mainKey' in o || 'dynamicKeys' in o) {
      if (o.mainKey) add(ZERO_GUID, o.mainKey);
      for (const [g, k] of Object.entries((o.dynamicKeys as Record<string, unknown>) ?? {})) add(g, k);
    } else {
      for (const [g, k] of Object.entries(o)) add(g, k);
    }
    return ring;
  }
}

function normalizeGuid(g: string): string {
  const hex = g.replace(/^0x/i, '').replace(/[{}\-\s]/g, '').toUpperCase();
  if (/^(DEFAULT|MAIN)$/.test(hex)) return ZERO_GUID;
  if (!/^[0-9A-F]{32}$/.test(hex)) throw new IoStoreError('USAGE', `${quote(g)} is not an encryption-key GUID (32 hex digits)`);
  return hex;
}
