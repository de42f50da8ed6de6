import { IoStoreError } from '../errors.js';
import { quote } from '../util/quote.js';

/**
 * Engine versions a user can name with `--engine`. Only the generation (UE4 or UE5 chunk-type numbering, SHA-1 or
 * BLAKE3 chunk hashes) follows from it in the TOC reader; later stages use the finer version.
 */
export const ENGINE_VERSIONS = [
  'UE4_25', 'UE4_26', 'UE4_27',
  'UE5_0', 'UE5_1', 'UE5_2', 'UE5_3', 'UE5_4', 'UE5_5', 'UE5_6', 'UE5_7', 'UE5_8',
  'UE6_0',
] as const;
export type EngineVersion = (typeof ENGINE_VERSIONS)[number];
export type EngineGeneration = 'UE4' | 'UE5';

/** `ue5.4`, `UE_5_4`, `5.4` -> `UE5_4` (or `5_4`, which callers also try with a `UE` prefix). */
export function normalizeEngineName(s: string): string {
  return s.trim().toUpperCase().replace(/^UE_?/, 'UE').replace(/[.\-]/g, '_');
}

export function parseEngineVersion(s: string): EngineVersion {
  const norm = normalizeEngineName(s);
  const v = ENGINE_VERSIONS.find((e) => e === norm || e === `UE${norm}`);
  if (!v) throw new IoStoreError('USAGE', `unknown engine version ${quote(s)} (expected one of ${ENGINE_VERSIONS.join(', ')})`);
  return v;
}

export function engineGeneration(v: EngineVersion): EngineGeneration {
  return v.startsWith('UE4') ? 'UE4' : 'UE5';
}

/** The generation a TOC version implies: 4.26/4.27 wrote v2/v3, every UE5 release v4 or later. */
export function generationFromTocVersion(tocVersion: number): EngineGeneration {
  return tocVersion <= 3 ? 'UE4' : 'UE5';
}

/** The engine releases that write a TOC version, for display. */
export function enginesForTocVersion(tocVersion: number): string {
  switch (tocVersion) {
    case 1: return 'UE 4.25';
    case 2: return 'UE 4.26';
    case 3: return 'UE 4.27';
    case 4: return 'UE 5.0 pre-release';
    case 5: return 'UE 5.0-5.3';
    case 6: return 'UE 5.4';
    case 7: return 'UE 5.5 (development)';
    case 8: return 'UE 5.5-5.8';
    case 9: return 'UE 5.8+';
    case 10: return 'UE 6.0';
    default: return 'unknown';
  }
}

/** The engine releases that write a TOC version (as enginesForTocVersion says for people). */
export function enginesWritingTocVersion(tocVersion: number): EngineVersion[] {
  const from = (a: EngineVersion, b: EngineVersion) => ENGINE_VERSIONS.slice(ENGINE_VERSIONS.indexOf(a), ENGINE_VERSIONS.indexOf(b) + 1);
  switch (tocVersion) {
    case 1: return ['UE4_25'];
    case 2: return ['UE4_26'];
    case 3: return ['UE4_27'];
    case 4: return ['UE5_0'];
    case 5: return from('UE5_0', 'UE5_3');
    case 6: return ['UE5_4'];
    case 7: return ['UE5_5'];
    case 8: return from('UE5_5', 'UE5_8');
    case 9: return ['UE5_8', 'UE6_0'];
    case 10: return ['UE6_0'];
    default: return [];
  }
}

/** `UE 5.6, 5.7 or 5.8`: engine releases for a message. */
export function engineListText(engines: readonly EngineVersion[]): string {
  const names = engines.map((e) => e.slice(2).replace('_', '.'));
  if (names.length <= 1) return `UE ${names.join('')}`;
  return `UE ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
