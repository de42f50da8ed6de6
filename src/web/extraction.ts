/** Getting files out: one file as it is (Download), or many as a .zip streamed while they are read. */
import { $, fmtBytes, fmtInt, saveBlob } from './dom.js';
import { oneLine, rowPieces, unreadable } from './session.js';
import { state } from './state.js';
import { setError, setProgress, setStatus } from './status.js';
import type { Subject } from './subject.js';
import { blobSink, writableSink, zipEntries, type ZipEntrySource, type ZipSink } from './zip.js';

/** Saves the shown file under its own name, refusing if the set it came from is gone. */
export async function downloadSubject(s: Subject): Promise<void> {
  const parts: Uint8Array[] = [];
  for await (const p of s.pieces()) parts.push(p);
  if (s.generation !== state.generation) throw new Error(`${s.path}: not saved: other files were opened meanwhile`);
  saveBlob(new Blob(parts as BlobPart[]), s.name);
  setStatus(`Saved ${s.name} (${fmtBytes(s.size)})`);
}

/** Whether the loaded set has rows whose bytes can be read (the Extract buttons are off otherwise). */
export function canExtract(): boolean {
  const loaded = state.loaded;
  return !!loaded && loaded.rows.some((r) => !unreadable(loaded.containers[r.container]!));
}

export function updateExtractButtons(): void {
  const on = canExtract() && !state.busy;
  for (const id of ['extract-shown', 'extract-all']) $<HTMLButtonElement>(id).disabled = !on;
}

type SavePicker = (o: unknown) => Promise<{ createWritable(): Promise<{ write(d: Uint8Array): Promise<void>; close(): Promise<void> }> }>;

export async function extract(which: 'shown' | 'all'): Promise<void> {
  if (state.busy || !state.loaded) return;
  const loaded = state.loaded;
  const generation = state.generation;
  const rows = which === 'all' ? loaded.rows.filter((r) => !r.overridden) : Array.from(state.view, (i) => loaded.rows[i]!);
  const readable = rows.filter((r) => !unreadable(loaded.containers[r.container]!));
  const skipped = rows.length - readable.length;
  if (readable.length === 0) {
    setError([`nothing to extract: ${skipped} row(s) live in containers whose data is missing or locked`]);
    return;
  }
  const name = which === 'all' ? 'iostore-all.zip' : `iostore-${(state.folder || 'selection').replace(/\/$/, '').split('/').pop()}.zip`;
  // Where the browser can write straight to a file, the archive never sits in memory at all.
  let sink: ZipSink = blobSink();
  const picker = (window as unknown as { showSaveFilePicker?: SavePicker }).showSaveFilePicker;
  if (picker && $<HTMLInputElement>('to-disk').checked) {
    try {
      sink = writableSink(await (await picker({ suggestedName: name })).createWritable());
    } catch {
      return;
    }
  }
  const total = readable.reduce((a, r) => a + r.size, 0);
  state.busy = true;
  state.cancel = false;
  updateExtractButtons();
  const entries: ZipEntrySource[] = readable.map((r) => ({ path: r.path, pieces: () => rowPieces(loaded.containers, r, state.key) }));
  try {
    const t0 = performance.now();
    const progress = (p: { bytes: number; files: number; filesTotal: number }) => setProgress(p.bytes, total, `Extracting ${fmtInt(p.files)}/${fmtInt(p.filesTotal)} files, ${fmtBytes(p.bytes)} of ${fmtBytes(total)}`);
    // A new set opened meanwhile stops this one: its files would land in the archive of another set's name.
    const { archive, failures } = await zipEntries(entries, sink, progress, () => state.cancel || state.generation !== generation);
    if (state.generation !== generation) return;
    if (archive) saveBlob(archive, name);
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    const written = readable.length - failures.length;
    const notes = [failures.length ? `${fmtInt(failures.length)} could not be read (listed above)` : '', skipped ? `${fmtInt(skipped)} skipped (no data)` : ''].filter(Boolean);
    setStatus(`${state.cancel ? 'Stopped: ' : ''}${name}: ${fmtInt(written)} of ${fmtInt(readable.length)} files, ${fmtBytes(total)} in ${secs} s${notes.length ? `; ${notes.join('; ')}` : ''}`);
    document.body.dataset.extracted = String(written);
    setError(failures);
  } catch (e) {
    setError([oneLine(e)]);
  } finally {
    state.busy = false;
    setProgress(0, 0, '');
    updateExtractButtons();
  }
}
