import { IoStoreError } from '../errors.js';
import type { Codec, CodecRecipe } from './codec.js';
import { lz4Codec } from './lz4.js';
import { gzipNode, zlibAtLevel, zlibNode } from './zlib.js';
import { oodleCodec, oodleEncoder, type OodleEncoderName } from './oodle/index.js';
import { quote } from '../util/quote.js';
import { zstdNode } from './zstd.js';
import { OODLE_ENCODERS } from './encoder-names.js';

/** Codecs by the (case-insensitive) method name a container uses. */
export class CodecRegistry {
  private readonly byName = new Map<string, Codec>();

  constructor(codecs: readonly Codec[] = []) {
    for (const c of codecs) this.register(c);
  }

  /** Adds or replaces the codec for `codec.name`. */
  register(codec: Codec): this {
    this.byName.set(codec.name.toLowerCase(), codec);
    return this;
  }

  get(name: string): Codec | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /** The codec for `name`, or a CODEC error saying how to provide one. */
  require(name: string): Codec {
    const c = this.get(name);
    if (c) return c;
    const hint = `register one with registry.register({ name: ${quote(name)}, decompress })`;
    throw new IoStoreError('CODEC', `no decoder for compression method ${quote(name)}: ${hint}`);
  }

  names(): string[] {
    return [...this.byName.values()].map((c) => c.name);
  }

  /**
   * What a worker thread needs to decode `names` as this registry does: the recipes of the codecs that are not the
   * built-ins, or undefined when one of them cannot be rebuilt in a worker.
   */
  workerRecipes(names: readonly string[]): CodecRecipe[] | undefined {
    const builtin = defaultCodecs();
    const recipes: CodecRecipe[] = [];
    for (const name of names) {
      const c = this.get(name);
      if (c === undefined || c === builtin.get(name)) continue;
      if (!c.recipe) return undefined;
      recipes.push(c.recipe);
    }
    return recipes;
  }

  clone(): CodecRegistry {
    return new CodecRegistry([...this.byName.values()]);
  }
}

/** None is method 0 and never reaches a codec; it is listed so `decompress --method none` works. */
export const noneCodec: Codec = {
  name: 'None',
  decompress(src, size) {
    if (src.length < size) throw new IoStoreError('CODEC', `None: block holds ${src.length} bytes, expected ${size}`);
    return src.subarray(0, size);
  },
  compress: (src) => src,
};

/**
 * A registry with every built-in codec, Oodle (Kraken, Mermaid, Selkie, Leviathan, BitKnit) included, and Zstd when
 * the runtime's node:zlib has it.
 */
export function defaultCodecs(): CodecRegistry {
  return new CodecRegistry([noneCodec, zlibNode, gzipNode, lz4Codec, oodleCodec, ...(zstdNode ? [zstdNode] : [])]);
}

/** The built-ins plus the codecs `recipes` describe (see `CodecRegistry.workerRecipes`). */
export async function codecsFromRecipes(recipes: readonly CodecRecipe[]): Promise<CodecRegistry> {
  const r = defaultCodecs();
  for (const { module, factory, args } of recipes) {
    const mod = (await import(module)) as Record<string, (...a: unknown[]) => Promise<Codec>>;
    r.register(await mod[factory]!(...args));
  }
  return r;
}

/** How a codec that encodes in several ways is to encode: Oodle's codec and level, Zlib's and Gzip's level. */
export interface EncoderSettings {
  /** 1 (fastest) to 9 (smallest); default Oodle 4, Zlib and Gzip 6. */
  level?: number;
  /** Oodle only: which codec writes the blocks (default Kraken). */
  oodleCodec?: OodleEncoderName;
}

export { OODLE_ENCODERS };

/** Codecs made by encoderFor, with what made them: workers rebuild them from that. */
const made = new WeakMap<object, { name: string; settings: EncoderSettings }>();

/**
 * The built-in codec `name` set up to encode with `settings` (it decodes as usual). A USAGE error when the codec
 * takes no such setting or a value is out of range.
 */
export function encoderFor(name: string, settings: EncoderSettings): Codec {
  const base = defaultCodecs().require(name);
  const { level, oodleCodec: which } = settings;
  if (level !== undefined && (!Number.isInteger(level) || level < 1 || level > 9)) throw new IoStoreError('USAGE', `compression level must be a whole number from 1 to 9, got ${level}`);
  if (which !== undefined && base !== oodleCodec) throw new IoStoreError('USAGE', `an Oodle codec (${which}) was given, but the compression is ${base.name}`);
  if (which !== undefined && !OODLE_ENCODERS.includes(which)) throw new IoStoreError('USAGE', `Oodle codec must be ${OODLE_ENCODERS.join(', ')}, got ${quote(String(which))}`);
  let codec: Codec;
  if (base === oodleCodec) codec = oodleEncoder({ ...(which ? { codec: which } : {}), ...(level !== undefined ? { level } : {}) });
  else if (level === undefined) return base;
  else if (base === zlibNode || base === gzipNode) codec = zlibAtLevel(base, level);
  else throw new IoStoreError('USAGE', `${base.name} has no compression levels (Oodle, Zlib and Gzip have)`);
  made.set(codec, { name: base.name, settings: { ...settings } });
  return codec;
}

/** The name and settings an encoderFor codec was made with, or undefined for any other codec. */
export function encoderSettings(codec: object): { name: string; settings: EncoderSettings } | undefined {
  return made.get(codec);
}
