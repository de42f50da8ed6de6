export { verifyContainer } from './verify.js';
export type { VerifyOptions, VerifyResult, ChunkMismatch, VerifyProblem } from './verify.js';
export { verifyPak } from './pak-verify.js';
export type { PakVerifyResult } from './pak-verify.js';
