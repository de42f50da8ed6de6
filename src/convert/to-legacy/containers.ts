import { ContainerReader } from '../../cas/container-reader.js';
import { fileSourceSync } from '../../cas/source.js';
import { writeChunkFile } from '../../chunks/write-chunk.js';
import { IoStoreError } from '../../errors.js';
import { safeOutputPath } from '../../layout/output.js';
import { unnamedChunkPath } from '../../layout/unnamed.js';
import type { MountEntry } from '../../mount/mount.js';
import { openContainer } from '../../mount/open.js';
import type { EngineVersion } from '../../toc/engine.js';
import { packagesById, parseContainerHeader } from '../../zen/container-header.js';
import type { ZenPackage } from '../../zen/zen-package.js';
import type { ToLegacyOptions } from '../to-legacy.js';
import { engineFromToc, engineOpen } from './engine-release.js';
import { HEADER_PROBE, KEEP_BUDGET, KEEP_PARSED_BUDGET, readHeader } from './package-headers.js';
import { convertPackage, legacyPaths } from './package-job.js';
import type { OpenedContainer, ToLegacyRun } from './run.js';

/** Chunks up to this size are read whole and handed to the writer; larger ones are streamed in spans. */
const WHOLE_CHUNK_MAX = 16 << 20;

/**
 * A reader whose reads are blocking calls: packages are read one after another and are small, and a read from the
 * page cache costs less than a round trip through the libuv pool (spans are at most the reader's 2 MiB).
 */
export async function openSyncReader(entry: MountEntry, o: ToLegacyOptions): Promise<ContainerReader> {
  const r = await openContainer(entry, o);
  const origin = r.origin!;
  await r.close();
  return new ContainerReader(r.toc, origin.partitions.map((p) => fileSourceSync(p)), { ...(origin.aesKey ? { aesKey: origin.aesKey } : {}), codecs: r.codecs, origin });
}

/**
 * Opens every container (one that cannot be read is a failure) and notes which of them provides each chunk id.
 * Nothing at hand could be read: the one error, as unpack gives it, rather than a failure among no successes.
 */
export async function openContainers(run: ToLegacyRun, entries: readonly MountEntry[]): Promise<void> {
  let openError: IoStoreError | undefined;
  for (const entry of entries) {
    try {
      run.containers.push({ entry, reader: await openSyncReader(entry, run.options) });
    } catch (e) {
      run.fail(entry.utoc, e);
      openError ??= e as IoStoreError;
    }
  }
  if (openError && run.containers.length === 0 && run.jobs.length === 0) throw openError;
  run.containers.forEach(({ reader }, c) => {
    for (let i = 0; i < reader.toc.chunkCount; i++) run.owner.set(reader.toc.chunkIdHex(i), c);
  });
}

/** The store entries of the containers' headers, and the engine release and layout each header gives its container. */
export async function readContainerHeaders(run: ToLegacyRun): Promise<void> {
  for (const [c, container] of run.containers.entries()) {
    const reader = container.reader;
    for (let i = 0; i < reader.toc.chunkCount; i++) {
      if (reader.toc.chunkTypeName(i) !== 'ContainerHeader' || run.owner.get(reader.toc.chunkIdHex(i)) !== c) continue;
      try {
        const header = parseContainerHeader(await reader.readChunk(i), { source: reader.toc.source });
        for (const [id, p] of packagesById(header)) run.headers.stores.set(id, p);
        // UE 5.0 wrote LocalizedPackages headers (the corpus UE5.0 header), 5.1 OptionalSegmentPackages (patchtest).
        if (header.version === 'UE5Initial' || header.version === 'LocalizedPackages') container.headerEngine = 'UE5_0';
        container.headerVersion = header.version;
      } catch (e) {
        if (!(e instanceof IoStoreError)) throw e;
        run.result.warnings.push(`${reader.toc.source}: container header not read (${e.message}); imports of 5.0-5.2 packages may stay unnamed`);
      }
    }
  }
}

/** A package chunk after pass 1: its header, and its bytes (and full parse) when kept for the conversion. */
interface PackageChunk {
  container: OpenedContainer;
  i: number;
  path: string;
  z: ZenPackage;
  engine: EngineVersion | undefined;
  bytes?: Uint8Array;
  full?: ZenPackage;
}

/**
 * Pass 1 over the containers: every package's header (into the run's headers, so imports can be named from the
 * packages at hand), and a job per other chunk but the shader libraries converted (`libraries`) and the ShaderCode
 * chunks they take in. Returns the package chunks, for planContainerPackages.
 */
export async function planContainerChunks(run: ToLegacyRun, libraries: ReadonlySet<string>): Promise<PackageChunk[]> {
  const packageChunks: PackageChunk[] = [];
  let kept = 0;
  let keptParsed = 0;
  for (const [c, container] of run.containers.entries()) {
    const reader = container.reader;
    const toc = reader.toc;
    const engine = engineFromToc(toc.version) ?? container.headerEngine;
    for (let i = 0; i < toc.chunkCount; i++) {
      await run.turn();
      run.stopIfInterrupted();
      const idHex = toc.chunkIdHex(i);
      if (run.owner.get(idHex) !== c) continue;
      const type = toc.chunkTypeName(i);
      const path = toc.chunkPath(i) ?? unnamedChunkPath(type, idHex);
      if (type === 'ExportBundleData') {
        try {
          const size = toc.chunkSize(i);
          const keep = size <= HEADER_PROBE && kept + size <= KEEP_BUDGET;
          const { z, bytes } = await readHeader(reader, run.raw, i, `${toc.source}: ${path}`, run.options.engine ?? engine, keep);
          if (bytes) kept += bytes.length;
          run.headers.add(toc.chunkId(i).id, z);
          // A whole package parsed here is kept parsed too (within its own, smaller budget), not parsed again.
          const full = bytes && keptParsed + bytes.length <= KEEP_PARSED_BUDGET ? z : undefined;
          if (full) keptParsed += bytes!.length;
          packageChunks.push({ container, i, path, z, engine, ...(bytes ? { bytes } : {}), ...(full ? { full } : {}) });
        } catch (e) {
          run.fail(path, e);
        }
        continue;
      }
      if ((type === 'ShaderCodeLibrary' && libraries.has(idHex)) || (type === 'ShaderCode' && run.claimed.has(idHex))) continue;
      if (run.match && !run.match(path)) continue;
      run.result.otherChunks++;
      addChunkJob(run, reader, i, path, toc.chunkSize(i));
    }
  }
  return packageChunks;
}

/** A chunk written as unpack writes it. */
function addChunkJob(run: ToLegacyRun, reader: ContainerReader, i: number, path: string, size: number): void {
  const outputs = [path];
  run.addJob({ path, kind: 'chunk', size, outputs, run: async () => {
    const target = safeOutputPath(run.root, outputs[0]!);
    // Large chunks stream through in spans (bounded memory) rather than whole through the writer.
    if (size > WHOLE_CHUNK_MAX) {
      run.wroteFile(await writeChunkFile(reader, i, target));
      return {};
    }
    return { written: run.writeFile(target, run.raw.read(reader, i, 0, size) ?? (await reader.readChunk(i))) };
  } });
}

/** A job per package chunk the filter takes; those whose engine release is open wait for settleUnversioned. */
export function planContainerPackages(run: ToLegacyRun, packageChunks: readonly PackageChunk[]): void {
  for (const p of packageChunks) {
    const out = legacyPaths(p.path);
    if (run.match && !run.match(out.uasset)) continue;
    const toc = p.container.reader.toc;
    if (engineOpen(run, p.z, p.engine)) {
      const hv = p.container.headerVersion;
      run.unversioned.push({ z: p.z, path: p.path, where: toc.source, hints: { tocVersion: toc.version, ...(hv ? { containerHeaderVersion: hv } : {}) }, settle: (e) => (p.engine = e) });
    }
    const size = toc.chunkSize(p.i);
    run.result.packages++;
    const pair = [out.uasset, out.uexp];
    run.addJob({ path: out.uasset, kind: 'package', size, outputs: pair, run: async () => {
      const reader = p.container.reader;
      const bytes = p.bytes ?? run.raw.read(reader, p.i, 0, size) ?? (await reader.readChunk(p.i));
      const full = p.bytes ? p.full : undefined;
      delete p.bytes;
      delete p.full;
      return convertPackage(run, bytes, p.z, `${reader.toc.source}: ${p.path}`, { uasset: pair[0]!, uexp: pair[1]! }, p.engine, full);
    } });
  }
}
