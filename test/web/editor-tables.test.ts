/**
 * A legacy editor package in the page (#30): its thumbnails shown as pictures that Chromium decodes at the size the
 * thumbnail table states, and its other tables as lists equal to the library's view (screenshot:
 * `WEB_SCREENSHOTS=docs npx vitest run test/web/editor-tables.test.ts` refreshes docs/web-thumbnails.png).
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeLegacyPackage, parseLegacyPackage } from '../../src/legacy/index.js';
import { corpusPath } from '../corpus.js';
import { canRun, drop, fresh, ROOT, useBrowser } from './browser.js';

const editor = (...p: string[]) => corpusPath('legacy-games', ...p);

describe.skipIf(!canRun)('web page: a legacy editor package\'s thumbnails and tables', () => {
  const { openPage } = useBrowser();

  /** The thumbnails shown: each <img>'s object, decoded size and whether it decoded. */
  const pictures = (page: import('puppeteer-core').Page) =>
    page.$$eval('#details figure.thumb img', (imgs) =>
      Promise.all(
        (imgs as HTMLImageElement[]).map(async (img) => {
          await img.decode().catch(() => undefined);
          return { object: img.dataset.object!, width: img.naturalWidth, height: img.naturalHeight, complete: img.complete };
        }),
      ),
    );

  it('TestMaterial (UE 4.27): one PNG; BP_FirstPersonCharacter (UE 5.7): two JPEGs; each decoded at its table\'s size; the lists the library\'s; no serious axe violation', async () => {
    // axe-core injected to audit the tab at the end.
    const { page, errors } = await openPage(undefined, { width: 1400, height: 900 }, { axe: true });
    const material = editor('ue4.27-editor', 'TestMaterial.uasset');
    await drop(page, [material]);
    await page.waitForSelector('#details figure.thumb img');
    expect(await pictures(page)).toEqual([{ object: 'TestMaterial', width: 256, height: 256, complete: true }]);
    // The tables as lists, as the library describes them.
    const lib = describeLegacyPackage(parseLegacyPackage(new Uint8Array(readFileSync(material))));
    const tags = await page.$$eval('#details table.asset-registry tbody tr', (trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent)));
    expect(tags.slice(1)).toEqual(Object.entries(lib.assetRegistry!.objects[0]!.tags));

    const character = editor('ue5.7-editor', 'Blueprints', 'BP_FirstPersonCharacter.uasset');
    await drop(page, [character]);
    await page.waitForFunction(() => document.querySelectorAll('#details figure.thumb img').length === 2);
    expect(await pictures(page)).toEqual([
      { object: 'BP_FirstPersonCharacter', width: 256, height: 256, complete: true },
      { object: 'BP_FirstPersonCharacter_C', width: 256, height: 256, complete: true },
    ]);
    const lib57 = describeLegacyPackage(parseLegacyPackage(new Uint8Array(readFileSync(character))));
    const headings = await page.$$eval('#details h4', (hs) => hs.map((x) => x.textContent));
    expect(headings).toEqual(expect.arrayContaining(['Thumbnails (2)', 'Asset registry (2)', 'Soft object paths (21)', `Package metadata (${Object.values(lib57.metaData!.objects).reduce((n, o) => n + Object.keys(o.values).length, 0) + 1})`, 'Package trailer: 0 payloads']));
    // Long lists are folded; opened, the soft object paths are the library's.
    await page.evaluate(() => {
      for (const x of document.querySelectorAll<HTMLDetailsElement>('#details details.table-list')) x.open = true;
    });
    await page.waitForSelector('#details table.soft-object-paths');
    expect(await page.$$eval('#details table.soft-object-paths tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent))).toEqual(lib57.softObjectPaths);

    // The screenshot: the package tab with its thumbnails in view.
    await page.$eval('#details', (d) => (d.scrollTop = 0));
    await page.evaluate(() => document.querySelector('#details .thumbs')!.scrollIntoView({ block: 'center' }));
    await page.mouse.move(1, 1);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const dir = process.env.WEB_SCREENSHOTS ? join(ROOT, process.env.WEB_SCREENSHOTS) : fresh('shots');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'web-thumbnails.png') as `${string}.png`;
    await page.screenshot({ path: file });
    expect(statSync(file).size).toBeGreaterThan(20_000);
    // The tab with every list open: no critical or serious accessibility violation.
    const violations = await page.evaluate(async () => {
      const r = await (window as unknown as { axe: { run(c: Document, o: unknown): Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact }));
    });
    expect(violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('an empty thumbnail is a placeholder, not a broken picture', async () => {
    const { page, errors } = await openPage();
    await drop(page, [editor('ue4.27-editor', 'TestSoundClass.uasset')]);
    await page.waitForSelector('#details figure.thumb');
    expect(await page.$$eval('#details figure.thumb', (fs) => fs.map((f) => [f.querySelector('img') !== null, f.querySelector('.thumb-empty')?.textContent]))).toEqual([[false, 'no image']]);
    expect(errors).toEqual([]);
  });
});
