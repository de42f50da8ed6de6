/**
 * The type mappings (`.usmap`) the page reads unversioned properties with: like the AES key, one for the page,
 * kept across sets until another is chosen. Chosen with the header's Mappings… button (or the Properties tab's),
 * or taken from an opened folder that holds one.
 */
import { parseUsmap, type Usmap } from '../usmap/index.js';
import { $ } from './dom.js';
import { oneLine, type InputFile } from './session.js';
import { setError } from './status.js';

export interface ChosenMappings {
  name: string;
  usmap: Usmap;
}

let chosen: ChosenMappings | undefined;
/** The view to show again when the mappings change (the Properties tab that asked for them). */
let onChange: (() => void) | undefined;

export const currentMappings = (): ChosenMappings | undefined => chosen;

/** Asks for `then` to run once new mappings are in (the last caller wins: one tab shows at a time). */
export function whenMappingsChange(then: () => void): void {
  onChange = then;
}

function showChosen(): void {
  const b = $('pick-usmap-button');
  b.textContent = chosen ? `Mappings: ${chosen.name}` : 'Mappings…';
  b.title = chosen ? `type mappings for unversioned properties: ${chosen.name} (click to choose another)` : 'choose the game\'s .usmap, for unversioned properties';
}

/** Reads a .usmap file and makes it the page's mappings; a file that is not one leaves the current mappings. */
export async function useMappingsFile(f: InputFile): Promise<void> {
  const usmap = parseUsmap(new Uint8Array(await f.file.arrayBuffer()), { source: f.path });
  chosen = { name: f.path.replace(/\\/g, '/').split('/').pop()!, usmap };
  showChosen();
  document.body.dataset.mappings = chosen.name;
  onChange?.();
}

/** Opens the file picker for a .usmap. */
export function chooseMappings(): void {
  $<HTMLInputElement>('pick-usmap').click();
}

/** An opened set that holds a .usmap (a game folder with its dump beside the Paks): use the first one. */
export async function mappingsFromOpened(files: readonly InputFile[]): Promise<void> {
  const f = files.find((x) => /\.usmap$/i.test(x.path));
  if (f && f.path !== chosenPath) {
    chosenPath = f.path;
    await useMappingsFile(f).catch((e) => setError([oneLine(e)]));
  }
}
let chosenPath: string | undefined;

export function wireMappings(): void {
  $('pick-usmap-button').addEventListener('click', chooseMappings);
  $<HTMLInputElement>('pick-usmap').addEventListener('change', (e) => {
    const el = e.target as HTMLInputElement;
    const file = el.files?.[0];
    el.value = '';
    if (file) void useMappingsFile({ path: file.name, file }).catch((err) => setError([oneLine(err)]));
  });
  showChosen();
}
