export { verifyContainer } from './verify.js';
export type { VerifyOptions, VerifyResult, ChunkMismatch, VerifyProblem } from './verify.js';
