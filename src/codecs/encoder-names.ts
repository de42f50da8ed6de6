import type { OodleEncoderName } from './oodle/index.js';

/**
 * The Oodle codecs `pack --oodle-codec` takes. Apart from the registry so the CLI's option declarations (which every
 * short command loads) do not load the codecs themselves: node:zlib and its stream modules cost `list` and `info`
 * several milliseconds at start.
 */
export const OODLE_ENCODERS: readonly OodleEncoderName[] = ['kraken', 'mermaid', 'selkie', 'leviathan'];
