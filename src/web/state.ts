/** What the page holds between events: the loaded set, the table's view of it, and the figures tests read. */
import type { PackageContext } from './package-view.js';
import type { InputFile, LoadResult } from './session.js';

export type SortKey = 'path' | 'type' | 'size' | 'stored' | 'compression' | 'container';

export interface State {
  files: InputFile[];
  key?: Uint8Array;
  loaded?: LoadResult;
  ctx?: PackageContext;
  /** Indices into loaded.rows, after folder, filter and sort. */
  view: Int32Array;
  sort: { key: SortKey; dir: 1 | -1 };
  folder: string;
  filter: string;
  showOverridden: boolean;
  selected: number;
  busy: boolean;
  cancel: boolean;
  /**
   * Counts loads. Anything started for one set (a details view, a download) carries the count it began under and
   * gives up when the count moved on: nothing about an earlier set reaches the page after a new one is opened.
   */
  generation: number;
}

export const state: State = { files: [], view: new Int32Array(0), sort: { key: 'path', dir: 1 }, folder: '', filter: '', showOverridden: false, selected: -1, busy: false, cancel: false, generation: 0 };

/** Figures the tests read: when the last drop started and when its table was on screen. */
export const perf = { dropAt: 0, tableMs: -1 };
