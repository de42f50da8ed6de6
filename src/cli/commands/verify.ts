import { parseEngineVersion } from '../../toc/engine.js';
import { openContainer } from '../../mount/open.js';
import { discoverMounts, mountEntry, type MountEntry, type PakMountEntry, pakMountEntry } from '../../mount/mount.js';
import { verifyPak, type PakVerifyResult } from '../../verify/pak-verify.js';
import { isPakPath, openPakForCli } from '../pak-open.js';
import { IoStoreError } from '../../errors.js';
import { verifyContainer, type VerifyResult } from '../../verify/verify.js';
import type { Command } from '../command.js';
import { formatBytes, renderJson } from '../format.js';
import { escapeControl } from '../../util/quote.js';
import { stalePartitions } from '../../pack/stale-outputs.js';
import { ExitCode, type CliIO } from '../io.js';
import { plural } from '../plural.js';
import { cliCodecs, keyRing, withKeyOptions, type KeyArgs } from '../keys.js';
import { ProgressBar } from '../progress.js';
import { engineOption, singleFile, threadsArg } from '../options.js';
import { verifyJson } from '../json-shapes.js';
import { keepYoungGenerationSmall } from '../young-generation.js';
import { isShortRun, skipOptimizingCompilerInWorkers } from '../short-run.js';
import { startWorkersAhead } from '../workers-ahead.js';
import { withoutExtension } from '../../util/file-extension.js';

interface VerifyArgs extends KeyArgs {
  threads?: number;
  paths: string[];
  hash?: 'blake3' | 'sha1';
  engine?: string;
  json?: boolean;
  quiet?: boolean;
}

/** A container of a folder run that could not be opened (no .ucas, no key ...): reported, the others go on. */
interface Unopened {
  file: string;
  ok: false;
  error: { code: string; message: string };
}

export const verifyCommand: Command<VerifyArgs> = {
  command: 'verify <paths..>',
  describe: 'Re-hash every chunk against its stored hash (and block signatures of signed containers); every .pak entry and index part against its SHA-1',
  builder: (y) =>
    withKeyOptions(y)
      .usage('$0 verify <input..>\n\nInputs are .utoc files (their .ucas partitions beside them), .pak files and/or folders searched for\nthem, e.g. a game\'s Paks folder. One file gives one result; several give one per container and a\ntotal. A .pak is checked entry by entry (SHA-1 of the stored bytes, no key needed) and index part by\nindex part; an encrypted index needs its key.')
      .positional('paths', { type: 'string', array: true, demandOption: true, describe: '.utoc/.pak file(s) or folder(s)' })
      .option('hash', { choices: ['blake3', 'sha1'] as const, describe: 'hash algorithm (default: BLAKE3 for UE5, SHA-1 for UE4)' })
      .option('engine', engineOption('engine release (e.g. UE4_27) when the TOC version cannot tell'))
      .option('threads', { type: 'number', describe: 'worker threads beside the main one, hashing whole chunks (0: the main thread alone; default: one per other core when 16 MiB or more of blocks need decoding, else one for 128 MiB or more of chunks)' })
      .option('json', { type: 'boolean', describe: 'print the result as JSON (several containers: { containers: [...], ok })' })
      .example('$0 verify pakchunk0-Windows.utoc', '')
      .example('$0 verify Game/Content/Paks --aes-key 0x...', 'every container of a game') as never,
  async run(args, io) {
    const engine = args.engine === undefined ? undefined : parseEngineVersion(args.engine);
    const threads = threadsArg(args.threads);
    const file = singleFile(args.paths);
    const single = file !== undefined;
    let entries: MountEntry[] = [];
    let paks: PakMountEntry[] = [];
    if (file !== undefined) {
      if (isPakPath(file)) paks = [pakMountEntry(file)];
      else entries = [mountEntry(file)];
    } else {
      ({ containers: entries, paks } = await discoverMounts(args.paths));
    }
    const open = { keys: await keyRing(args), codecs: await cliCodecs(args), ...(engine ? { engine } : {}) };
    const results: Array<VerifyResult | PakVerifyResult | Unopened> = [];
    for (const entry of entries) {
      // Not for a short run (a small .utoc): the flag change made every built-in the run loaded after it, and all of a
      // worker's, compile from source rather than from Node's code cache. A short run of one container goes without
      // TurboFan once its worker has loaded (of several, a long run may follow).
      if (!isShortRun(entry.utoc)) keepYoungGenerationSmall();
      else if (single) skipOptimizingCompilerInWorkers();
      // Workers load while the TOC is read.
      const ahead = startWorkersAhead('hash', [entry.utoc], threads);
      let reader;
      try {
        reader = await openContainer(entry, open);
      } catch (e) {
        void ahead?.discard();
        // One .utoc asked for by name is bad input; one of many is a partial failure.
        if (single || !(e instanceof IoStoreError)) throw e;
        results.push({ file: entry.utoc, ok: false, error: { code: e.code, message: e.message } });
        if (!args.json) io.out(`ERROR    ${e.message}\n`);
        continue;
      }
      const bar = new ProgressBar(io, single ? 'verify' : `verify ${entry.name}`, !args.quiet && !args.json && io.isTTY);
      let result;
      try {
        result = await verifyContainer(reader, { ...(args.hash ? { algorithm: args.hash } : {}), ...(threads !== undefined ? { threads } : {}), ...(ahead ? { workersAhead: ahead } : {}), onProgress: (p) => bar.update(p) });
      } finally {
        bar.done();
        void ahead?.discard();
        await reader.close();
      }
      results.push(result);
      if (!args.json) report(io, result, single ? '' : `${entry.name}: `, !!args.quiet);
      // Partitions the container does not have (an earlier, more partitioned one of the name left them): the engine
      // ignores them, but a folder that holds them is not what it seems.
      const stale = stalePartitions(withoutExtension(entry.utoc, '.utoc'), reader.toc.partitionCount);
      for (const f of stale) io.err(`warning: ${escapeControl(f)} is not one of the ${reader.toc.partitionCount} partition(s) of ${escapeControl(entry.utoc)}: left by an earlier container of this name?\n`);
    }
    // Paks after the containers, in mount order.
    if (paks.length > 0) keepYoungGenerationSmall();
    for (const p of paks) {
      let archive;
      try {
        // Index hashes are compared by verifyPak, so a bad one is reported rather than refused.
        archive = await openPakForCli(p.pak, open.keys, { verifyIndexHashes: false });
      } catch (e) {
        if (single || !(e instanceof IoStoreError)) throw e;
        results.push({ file: p.pak, ok: false, error: { code: e.code, message: e.message } });
        if (!args.json) io.out(`ERROR    ${e.message}\n`);
        continue;
      }
      const bar = new ProgressBar(io, single ? 'verify' : `verify ${p.name}.pak`, !args.quiet && !args.json && io.isTTY);
      let result;
      try {
        result = await verifyPak(archive, { onProgress: (x) => bar.update(x) });
      } finally {
        bar.done();
        await archive.close();
      }
      results.push(result);
      if (!args.json) reportPak(io, result, single ? '' : `${p.name}.pak: `, !!args.quiet);
    }
    const ok = results.every((r) => r.ok);
    if (args.json) io.out(renderJson(verifyJson(results.slice(0, entries.length), results.slice(entries.length), single)));
    else if (!single && (!args.quiet || !ok)) io.out(`${ok ? 'OK' : 'FAILED'}: ${verifiedCount(results.slice(0, entries.length), results.slice(entries.length))} verified\n`);
    return ok ? ExitCode.Ok : ExitCode.Partial;
  },
};

/** `3/3 containers and 1/2 paks`: containers and paks counted apart. */
function verifiedCount(containers: ReadonlyArray<{ ok: boolean }>, paks: ReadonlyArray<{ ok: boolean }>): string {
  const count = (list: ReadonlyArray<{ ok: boolean }>, noun: string) => `${list.filter((r) => r.ok).length}/${plural(list.length, noun)}`;
  return [containers.length > 0 || paks.length === 0 ? count(containers, 'container') : '', paks.length > 0 ? count(paks, 'pak') : ''].filter(Boolean).join(' and ');
}

function reportPak(io: CliIO, r: PakVerifyResult, prefix: string, quiet: boolean): void {
  for (const x of r.index) if (!x.ok) io.out(`MISMATCH ${prefix}${x.part} at ${x.offset}: expected ${x.expected}, got ${x.actual}\n`);
  for (const m of r.mismatches) io.out(`MISMATCH ${prefix}${escapeControl(m.path)}: expected ${m.expected}, got ${m.actual}\n`);
  for (const e of r.errors) io.out(`ERROR    ${prefix}${escapeControl(`${e.path}: ${e.message}`)}\n`);
  if (!quiet || !r.ok) {
    io.out(`${r.ok ? 'OK' : 'FAILED'}: ${prefix}${r.verified}/${r.entries} entries match their SHA-1 (${formatBytes(r.bytes)}${r.unhashed > 0 ? `, ${r.unhashed} without a recorded hash` : ''}), ${r.index.filter((x) => x.ok).length}/${r.index.length} index parts\n`);
  }
}

function report(io: CliIO, result: VerifyResult, prefix: string, quiet: boolean): void {
  for (const m of result.mismatches) io.out(`MISMATCH ${prefix}${escapeControl(m.path) || `${m.type} ${m.id}`} (chunk ${m.index}): expected ${m.expected}, got ${m.actual}\n`);
  for (const e of result.errors) io.out(`ERROR    ${prefix}${escapeControl(e.path) || e.id} (chunk ${e.index}): ${escapeControl(e.message)}\n`);
  for (const b of result.blockSignatureMismatches) io.out(`BAD BLOCK SIGNATURE ${prefix}block ${b}\n`);
  if (!quiet || !result.ok) {
    io.out(`${result.ok ? 'OK' : 'FAILED'}: ${prefix}${result.verified}/${result.chunks} chunks match their ${result.algorithm} hashes (${formatBytes(result.bytes)})${result.signed ? `, ${plural(result.blockSignatureMismatches.length, 'bad block signature')}` : ''}\n`);
  }
}
