/**
 * The page by keyboard alone, under an accessibility audit (axe-core), and at phone, laptop and desktop widths
 * (screenshots: `WEB_SCREENSHOTS=docs npx vitest run test/web/page-access.test.ts` refreshes the README's).
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { corpusPath } from '../corpus.js';
import { canRun, downloaded, drop, filter, fresh, ROOT, sha, unpacked, useBrowser } from './browser.js';

const cue = (variant: string, ...files: string[]) => files.map((f) => corpusPath('ue5.8-cue4parse', variant, f));
const oodle = cue('oodle', 'CUE4ParseFixtures-Minimal-Oodle-Windows.utoc', 'CUE4ParseFixtures-Minimal-Oodle-Windows.ucas');
const global = cue('global', 'global.utoc', 'global.ucas');
const pak = corpusPath('ue5.8-cue4parse', 'paks', 'CUE4ParseFixtures-Minimal-Oodle.pak');

/** What has the focus: its id, role, data attributes and text, enough to tell controls apart. */
function focused(page: Page): Promise<{ id: string; role: string; key: string; text: string; outline: string }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el.matches('[role="treeitem"]') ? el.querySelector('.lbl')! : el);
    return { id: el.id, role: el.getAttribute('role') ?? el.tagName.toLowerCase(), key: el.dataset.action ?? el.dataset.view ?? el.closest<HTMLElement>('[data-key]')?.dataset.key ?? '', text: el.textContent!.trim().slice(0, 40), outline: `${style.outlineStyle} ${style.borderColor}` };
  });
}

/** Presses Tab until `match` holds for the focused element; fails after `max` presses. */
async function tabTo(page: Page, match: (f: Awaited<ReturnType<typeof focused>>) => boolean, max = 40, key = 'Tab'): Promise<Awaited<ReturnType<typeof focused>>> {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    if (key === 'Shift+Tab') {
      await page.keyboard.down('Shift');
      await page.keyboard.press('Tab');
      await page.keyboard.up('Shift');
    } else await page.keyboard.press('Tab');
    const f = await focused(page);
    if (match(f)) return f;
    seen.push(`${f.id || f.role}:${f.key || f.text}`);
  }
  throw new Error(`not reached by ${key}: went through ${seen.join(', ')}`);
}

const selectedIndex = (page: Page) =>
  page.evaluate(() => {
    const { state } = (window as unknown as { iostoreWeb: { state: { view: Int32Array; selected: number } } }).iostoreWeb;
    return state.view.indexOf(state.selected);
  });

describe.skipIf(!canRun)('web page: keyboard, accessibility, widths', () => {
  const { openPage } = useBrowser();

  it('keyboard only: opens files through its own button, walks the tree, sorts, selects a row and downloads it', async () => {
    const { page, downloads, errors } = await openPage(undefined, undefined, { reload: true });
    // The first screen: the pickers are buttons in the Tab order.
    const open = await tabTo(page, (f) => f.id === 'open-files', 5);
    expect(open.role).toBe('button');
    // The interception puppeteer asks for must be on before the key opens the picker (puppeteer issue #6040: on a
    // loaded machine the press could win the race, and the picker then opens unseen).
    const choosing = page.waitForFileChooser();
    await new Promise((r) => setTimeout(r, 500));
    await page.keyboard.press('Enter');
    const chooser = await choosing;
    expect(chooser.isMultiple()).toBe(true);
    await chooser.accept([...oodle, ...global]);
    await page.waitForSelector('body[data-ready="1"]');
    expect(await page.$eval('#status', (el) => el.getAttribute('role'))).toBe('status');

    // The tree: one Tab stop; arrows open folders and narrow the table.
    const tree = await tabTo(page, (f) => f.role === 'treeitem');
    expect(tree.outline).toMatch(/^solid/);
    await page.keyboard.press('End');
    const folder = await page.evaluate(() => document.activeElement!.getAttribute('data-folder'));
    expect(folder).toMatch(/\/$/);
    await page.waitForFunction((f) => document.body.dataset.filter === '' && (window as unknown as { iostoreWeb: { state: { folder: string } } }).iostoreWeb.state.folder === f, {}, folder);
    expect(await page.evaluate(() => document.activeElement!.getAttribute('aria-selected'))).toBe('true');
    await page.keyboard.press('Home');
    expect(await page.evaluate(() => document.activeElement!.getAttribute('data-folder'))).toBe('');

    // The grid, then its column headers: Enter on Size sorts by size.
    const grid = await tabTo(page, (f) => f.id === 'scroller');
    expect(grid.role).toBe('grid');
    await tabTo(page, (f) => f.key === 'size');
    await page.keyboard.press('Enter');
    expect(await page.$eval('#thead [data-key="size"]', (el) => el.getAttribute('aria-sort'))).toBe('descending');
    // Back to the grid (Shift+Tab), three rows down, the grid points at the row it selected.
    await tabTo(page, (f) => f.id === 'scroller', 10, 'Shift+Tab');
    for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowDown');
    expect(await selectedIndex(page)).toBe(2);
    const active = await page.$eval('#scroller', (el) => el.getAttribute('aria-activedescendant'));
    expect(await page.$eval(`#${active}`, (el) => el.getAttribute('aria-selected'))).toBe('true');
    // The details pane follows the selection after a render: wait until it shows the selected row's file.
    await page.waitForFunction(() => {
      const id = document.getElementById('scroller')!.getAttribute('aria-activedescendant');
      const row = id ? document.getElementById(id) : null;
      const title = document.querySelector('#details h2')?.textContent;
      return !!row && !!title && !!document.querySelector('#details [data-action="download"]') && row.textContent!.includes(title);
    });
    const name = await page.$eval('#details h2', (el) => el.textContent!);
    // Enter goes to the details: the first control is Download.
    await page.keyboard.press('Enter');
    expect((await focused(page)).key).toBe('download');
    await page.keyboard.press('Enter');
    const file = await downloaded(downloads);
    expect(file.name).toBe(name);
    const reference = await unpacked(oodle);
    expect(sha(file.bytes)).toBe([...reference].find(([p]) => p.endsWith(`/${name}`))![1]);

    // The side pane's tabs: arrows move between Details and Containers.
    await tabTo(page, (f) => f.id === 'tab-details', 20, 'Shift+Tab');
    await page.keyboard.press('ArrowRight');
    expect(await focused(page)).toMatchObject({ id: 'tab-containers', role: 'tab' });
    expect(await page.$eval('#containers', (el) => (el as HTMLElement).hidden)).toBe(false);
    expect(errors).toEqual([]);
  });

  it('the splitters resize the panes by keyboard', async () => {
    const { page } = await openPage(undefined, { width: 1400, height: 900 });
    await drop(page, oodle);
    const width = (sel: string) => page.$eval(sel, (el) => el.getBoundingClientRect().width);
    const before = { tree: await width('#tree-pane'), side: await width('#side') };
    await page.focus('#split-tree');
    for (let k = 0; k < 4; k++) await page.keyboard.press('ArrowRight');
    await page.focus('#split-side');
    for (let k = 0; k < 4; k++) await page.keyboard.press('ArrowLeft');
    expect(await width('#tree-pane')).toBe(before.tree + 64);
    expect(await width('#side')).toBe(before.side + 64);
    expect(Number(await page.$eval('#split-side', (el) => el.getAttribute('aria-valuenow')))).toBe(before.side + 64);
  });

  it('axe-core finds no critical (and no serious) violation: first screen, a package, its properties, a container header, loose files', async () => {
    // axe-core injected once: the page is never reloaded below (each load is a drop on the same page).
    const { page, errors } = await openPage(undefined, undefined, { axe: true });
    const audit = async (what: string) => {
      const result = await page.evaluate(async () => {
        const r = await (window as unknown as { axe: { run(c: Document, o: unknown): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run(document, { resultTypes: ['violations'] });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
      });
      const bad = result.filter((v) => v.impact === 'critical' || v.impact === 'serious');
      expect(bad, `${what}: ${JSON.stringify(bad)}`).toEqual([]);
      return result;
    };
    const minor = [...(await audit('first screen'))];
    await drop(page, [...oodle, ...global, pak]);
    await filter(page, 'DT_AllProperties.uasset');
    await page.click('#window .tr');
    await page.waitForSelector('#view .pkg-name');
    minor.push(...(await audit('package view')));
    await page.click('#details [data-view="props"]');
    await page.waitForSelector('#view .props-tree');
    await page.click('#view .props-export > summary');
    minor.push(...(await audit('properties view')));
    await page.click('#tabs [data-tab="containers"]');
    await page.click('#containers [data-action="header"]');
    await page.waitForSelector('#details table.header-packages');
    minor.push(...(await audit('container header')));
    await drop(page, [corpusPath('zen-assets', 'UE5.4', 'BP_Table_Lamp.uasset'), corpusPath('zen-assets', 'UE5.4', 'BP_Table_Lamp.uexp'), corpusPath('zen-assets', 'UE5.4', 'Randy.uzenasset')]);
    await page.waitForSelector('#details nav.loose');
    minor.push(...(await audit('loose files')));
    if (minor.length) console.log(`test/web: axe, moderate or minor: ${JSON.stringify(minor)}`);
    expect(errors).toEqual([]);
  });

  it('at 1400x900, 800x600 and 390x844 the table keeps its Path column beside the details, and the hex view its 16 bytes', async () => {
    const { page, errors } = await openPage(undefined, { width: 1400, height: 900 });
    await drop(page, [...oodle, ...global, pak]);
    await filter(page, 'DT_AllProperties.uasset');
    await page.click('#window .tr');
    await page.waitForSelector('#view .pkg-name');
    await filter(page, '');
    const dir = process.env.WEB_SCREENSHOTS ? join(ROOT, process.env.WEB_SCREENSHOTS) : fresh('shots');
    mkdirSync(dir, { recursive: true });
    for (const [width, height] of [[1400, 900], [800, 600], [390, 844]] as const) {
      await page.setViewport({ width, height });
      // The selected row in view, as a user who cleared the filter would scroll to it; the details at their top, the
      // pointer out of the way.
      await page.mouse.move(1, 1);
      await page.evaluate(() => {
        document.getElementById('details')!.scrollTop = 0;
        const { state } = (window as unknown as { iostoreWeb: { state: { view: Int32Array; selected: number } } }).iostoreWeb;
        const sc = document.getElementById('scroller')!;
        sc.scrollTop = (state.view.indexOf(state.selected) - 3) * 22;
        sc.dispatchEvent(new Event('scroll'));
      });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const box = await page.evaluate(() => {
        const r = (sel: string) => document.querySelector(sel)!.getBoundingClientRect();
        const cell = r('#window .tr.sel .c-path');
        return { path: r('#thead .c-path').width, pathRight: r('#thead .c-path').right, cellTop: cell.top, cellBottom: cell.bottom, details: r('#details').height, scrollX: document.documentElement.scrollWidth - window.innerWidth };
      });
      const at = `${width}x${height}`;
      expect(box.path, at).toBeGreaterThanOrEqual(200);
      expect(box.pathRight, at).toBeLessThanOrEqual(width);
      expect(box.cellTop, at).toBeGreaterThan(0);
      expect(box.cellBottom, at).toBeLessThanOrEqual(height);
      expect(box.details, at).toBeGreaterThan(100);
      expect(box.scrollX, at).toBeLessThanOrEqual(0); // nothing wider than the window
      const file = join(dir, `web-${at}.png`) as `${string}.png`;
      await page.screenshot({ path: file });
      expect(statSync(file).size).toBeGreaterThan(10_000);
      // Every byte of a hex line is in view (the type shrinks with the pane).
      await page.click('#details [data-view="hex"]');
      await page.waitForSelector('#view pre.hex');
      const hex = await page.$eval('#view pre.hex', (el) => ({ scroll: el.scrollWidth - el.clientWidth, line: el.textContent!.split('\n')[0]! }));
      expect(hex.line).toMatch(/^00000000 {2}(?:[0-9a-f]{2} ){15}[0-9a-f]{2} {2}.{16}$/);
      expect(hex.scroll, at).toBeLessThanOrEqual(0);
      await page.click('#details [data-view="package"]');
      await page.waitForSelector('#view .pkg-name');
    }
    expect(errors).toEqual([]);
  });
});
