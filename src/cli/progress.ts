import type { CliIO } from './io.js';

/**
 * A one-line progress bar on stderr, drawn only on an interactive terminal and at most ten times a second, so
 * piped output and logs stay clean.
 */
export class ProgressBar {
  private last = 0;
  private drawn = false;
  private readonly started = Date.now();

  constructor(
    private readonly io: CliIO,
    private readonly label: string,
    private readonly enabled: boolean,
  ) {}

  update(p: { chunksDone: number; chunksTotal: number; bytesDone: number; bytesTotal: number }): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.last < 100 && p.chunksDone < p.chunksTotal) return;
    this.last = now;
    const frac = p.bytesTotal > 0 ? p.bytesDone / p.bytesTotal : p.chunksTotal > 0 ? p.chunksDone / p.chunksTotal : 1;
    const width = 30;
    const fill = Math.round(frac * width);
    const bar = `${'='.repeat(fill)}${fill < width ? '>' : ''}`.padEnd(width + 1).slice(0, width);
    const mb = (n: number) => (n / 1048576).toFixed(1);
    const secs = (now - this.started) / 1000;
    const rate = secs > 0.2 ? p.bytesDone / 1048576 / secs : 0;
    const eta = rate > 0 && p.bytesTotal > p.bytesDone ? ` ETA ${formatSeconds((p.bytesTotal - p.bytesDone) / 1048576 / rate)}` : '';
    const speed = rate > 0 ? ` ${rate.toFixed(0)} MiB/s${eta}` : '';
    // Padded so a shorter line fully covers the previous one.
    this.io.err(`\r${this.label} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${p.chunksDone}/${p.chunksTotal} chunks ${mb(p.bytesDone)}/${mb(p.bytesTotal)} MiB${speed}`.padEnd(100));
    this.drawn = true;
  }

  done(): void {
    if (this.drawn) this.io.err('\n');
    this.drawn = false;
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
