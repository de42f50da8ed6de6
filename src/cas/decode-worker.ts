// A decode worker: receives spans of compressed blocks, returns the decoded blocks (transferred, not copied).
import { parentPort } from 'node:worker_threads';
import { defaultCodecs } from '../codecs/registry.js';
import { IoStoreError } from '../errors.js';
import type { DecodeRequest, DecodeResponse } from './decode-pool.js';

const codecs = defaultCodecs();

parentPort!.on('message', (req: DecodeRequest) => {
  const outs: ArrayBuffer[] = [];
  let res: DecodeResponse;
  try {
    for (let k = 0; k < req.blocks.length; k++) {
      const b = req.blocks[k]!;
      try {
        const out = codecs.require(b.method).decompress(new Uint8Array(b.data), b.size);
        // Transfer needs a buffer of exactly the block: copy when the codec returned a view into a larger one.
        const own = out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out : out.slice();
        outs.push(own.buffer as ArrayBuffer);
      } catch (e) {
        throw Object.assign(e instanceof Error ? e : new Error(String(e)), { blockIndex: k });
      }
    }
    res = { id: req.id, outs };
  } catch (e) {
    const err = e as Error & { blockIndex?: number; code?: string };
    res = { id: req.id, error: { message: err.message, code: err instanceof IoStoreError ? err.code : 'CODEC', blockIndex: err.blockIndex ?? 0 } };
  }
  parentPort!.postMessage(res, 'outs' in res ? res.outs : []);
});
