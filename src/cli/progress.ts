import type { CliIO } from './io.js';

/**
 * A one-line progress bar on stderr, drawn only on an interactive terminal and at most ten times a second, so
 * piped output and logs stay clean.
 */
export class ProgressBar {
  private last = 0;
  private drawn = false;

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
    this.io.err(`\r${this.label} [${bar}] ${(frac * 100).toFixed(0).padStart(3)}% ${p.chunksDone}/${p.chunksTotal} chunks ${mb(p.bytesDone)}/${mb(p.bytesTotal)} MiB`);
    this.drawn = true;
  }

  done(): void {
    if (this.drawn) this.io.err('\n');
    this.drawn = false;
  }
}
