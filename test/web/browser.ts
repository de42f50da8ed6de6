/**
 * What the page tests share: one headless Chromium per worker process (Debian's `chromium`, driven by puppeteer-core),
 * the page served by `iostore web`, and helpers that feed it files and read what it shows, downloads and extracts.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { unzipSync } from 'fflate';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { startWebServer } from '../../src/cli/commands/web.js';
import { KeyRing, MANIFEST_NAME, parseAesKey, unpack } from '../../src/index.js';
import { hasCorpus } from '../corpus.js';
import { listFiles } from '../tmp.js';

export const ROOT = resolve(__dirname, '../..');
export const WEB = join(ROOT, 'dist', 'web');

function findChromium(): string | undefined {
  const env = process.env.CHROMIUM_PATH ?? process.env.PUPPETEER_EXECUTABLE_PATH;
  if (env && existsSync(env)) return env;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    try {
      const p = execFileSync('which', [name], { encoding: 'utf8' }).trim();
      if (p) return p;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

export const chromium = findChromium();
if (!chromium) {
  // CI installs chromium (.ci/run); there, a missing browser is a failure, not a skip.
  if (process.env.CI) throw new Error('test/web: chromium is not installed (apt-get install chromium); CI must have it');
  console.warn('test/web: SKIPPED: no chromium on PATH (apt-get install chromium, or set CHROMIUM_PATH)');
}
/** Whether the page tests can run here. */
export const canRun = !!chromium && hasCorpus;

/**
 * The test file's temporary folder, made and removed by useBrowser's hooks. (Made when this module loaded, it went
 * with the first test file that imported it: the test files of a worker process share their modules.)
 */
let tmp = '';
let n = 0;
export const fresh = (name: string) => join(tmp, `${name}-${n++}`);
export const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The page's own test hooks (src/web/app.ts). */
export interface PageHooks {
  state: { view: Int32Array; selected: number; loaded?: { rows: Array<{ path: string; container: number; compression: string; overridden: boolean; size: number }>; containers: Array<{ path: string; label: string }> } };
  /** Row `idx`'s bytes as SHA-256 hex, read the way Download reads them. */
  rowSha256(idx: number): Promise<string>;
}

export interface Opened {
  page: Page;
  downloads: string;
  errors: string[];
}

/** The worker process's browser and page server, launched by the first test file that needs them (see useBrowser). */
interface Shared {
  browser: Browser;
  url: string;
}
let shared: Promise<Shared> | undefined;

/**
 * One Chromium and one server for every page test file this worker process runs (the test files share their modules,
 * vitest.config.ts): a launch and its close cost ~2 CPU s, four times a suite. The browser, its profile and its
 * temporary files go when the process exits: vitest stops its workers with SIGTERM, which then exits (puppeteer's
 * exit hook kills the browser's process group), and a killed worker's browser is killed the same way.
 */
function sharedBrowser(): Promise<Shared> {
  const reuse = shared;
  if (reuse) return reuse.then((s) => (s.browser.connected ? s : ((shared = undefined), sharedBrowser())));
  shared = (async () => {
    // `npm test` builds first; a lone run of a page test builds the page itself (esbuild, well under a second).
    if (!existsSync(join(WEB, 'app.js'))) execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-web.mjs')]);
    const { launch } = await import('puppeteer-core');
    const profile = mkdtempSync(join(tmpdir(), 'iostore-web-chromium-'));
    process.once('exit', () => rmSync(profile, { recursive: true, force: true, maxRetries: 3 }));
    // Its temporary files too (a killed Chromium leaves its shared-memory folders behind).
    const env = { ...process.env, TMPDIR: profile };
    const browser = await launch({ executablePath: chromium!, headless: true, userDataDir: profile, env, handleSIGTERM: false, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    process.once('SIGTERM', () => process.exit(143));
    const s = await startWebServer({ port: 0, root: WEB });
    s.server.unref();
    return { browser, url: s.url };
  })();
  shared.catch(() => (shared = undefined));
  return shared;
}

/** axe-core's script, read once. */
let axeScript: string | undefined;
const axeSource = () => (axeScript ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));

/** The choices the page keeps from one set to the next (a fresh load has none of them). */
const KEPT_CHOICES = ['.view-tabs', '#thead', '#overridden', '#to-disk', '#toggle-tree', '#charts-box > summary', '[role="separator"]', '#pick-usmap', '#pick-usmap-button'];

/**
 * Run in the page right after a load: notes the load's <body> style (the splitters keep their sizes there), and marks
 * the document once the user acts on one of KEPT_CHOICES (the view tab last picked is private to the page's code).
 */
function watchChoices(kept: string[]): void {
  const w = window as unknown as { iostoreTest: { bodyStyle: string | null; chose: string } };
  w.iostoreTest = { bodyStyle: document.body.getAttribute('style'), chose: '' };
  const note = (e: Event) => {
    const hit = kept.find((sel) => (e.target as Element | null)?.closest?.(sel));
    if (hit && !w.iostoreTest.chose) w.iostoreTest.chose = hit;
  };
  for (const type of ['click', 'keydown', 'change', 'pointerdown']) document.addEventListener(type, note, true);
}

/**
 * Why the document cannot stand in for a fresh load, or '' when it can: it is at the server's page, under its own
 * Content-Security-Policy (no injected axe-core), idle, scrolled to the top, and nothing the page keeps across sets
 * differs from a load's (sort, the overridden rows, the side tab, pane sizes, mappings, a picked view tab).
 */
function unlikeFreshLoad(): string {
  const w = window as unknown as { iostoreTest?: { bodyStyle: string | null; chose: string }; iostoreWeb: PageHooks & { state: { sort: { key: string; dir: number }; showOverridden: boolean; busy: boolean } }; axe?: unknown };
  const t = w.iostoreTest;
  const s = w.iostoreWeb.state;
  if (!t) return 'not watched';
  if (t.chose) return `acted on ${t.chose}`;
  if (w.axe) return 'axe-core injected';
  if (s.busy) return 'busy';
  if (s.sort.key !== 'path' || s.sort.dir !== 1) return 'sorted';
  if (s.showOverridden || (document.getElementById('overridden') as HTMLInputElement).checked) return 'overridden rows shown';
  if (document.querySelector<HTMLElement>('#tabs [aria-selected="true"]')?.dataset.tab !== 'details') return 'side tab';
  if (document.body.dataset.mappings) return 'mappings';
  if (document.body.getAttribute('style') !== t.bodyStyle) return 'pane sizes';
  if (document.getElementById('scroller')!.scrollTop !== 0) return 'scrolled';
  return '';
}

/**
 * The browser and the server for the file's tests; the returned helpers use them. The file's tests take turns on one
 * tab. openPage gives the test the page as a fresh load has it: the document the previous test left, when that one
 * is still like a fresh load in everything the page keeps from one set to the next (see unlikeFreshLoad: each test
 * then opens its own set, which clears the previous one), else the page loaded afresh (a load and the first set's
 * warm-up cost ~0.8 CPU s, 20 times in page.test.ts); `reload` always loads it. Either way the test gets the
 * viewport, a fresh downloads folder, its own error list and the page's own Content-Security-Policy; with `axe`, a
 * page loaded with that policy bypassed and axe-core injected (its script needs that), to audit.
 */
export function useBrowser() {
  let browser: Browser;
  let url: string;
  let tab: { page: Page; cdp: CDPSession; onError?: (e: Error) => void; at?: string; viewport?: string; downloads?: string; counting?: boolean } | undefined;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'iostore-web-'));
    ({ browser, url } = await sharedBrowser());
  }, 30_000);

  afterAll(async () => {
    if (tab && !tab.page.isClosed()) await tab.page.close();
    tab = undefined;
    rmSync(tmp, { recursive: true, force: true });
  });

  async function openPage(at?: string, viewport = { width: 1400, height: 820 }, { reload = false, axe = false } = {}): Promise<Opened> {
    if (!tab || tab.page.isClosed()) {
      const page = await browser.newPage();
      tab = { page, cdp: await page.createCDPSession() };
    }
    const { page, cdp } = tab;
    const target = at ?? url;
    const size = `${viewport.width}x${viewport.height}`;
    const reuse = !reload && !axe && tab.at === target && page.url() === target && tab.viewport === size && (await page.evaluate(unlikeFreshLoad).catch((e) => String(e))) === '';
    const errors: string[] = [];
    if (tab.onError) page.off('pageerror', tab.onError);
    tab.onError = (e) => errors.push(String(e));
    page.on('pageerror', tab.onError);
    const downloads = fresh('downloads');
    completed.set(downloads, 0);
    if (!tab.counting) {
      // Chromium says when a download is complete (renamed from .crdownload, every byte written): no waiting for its
      // size to settle, 100 ms and more a download (the 13 of page, page-access and props waited 1.55 s at load 12,
      // 0.17 s with the events).
      cdp.on('Browser.downloadProgress', (e) => {
        if (e.state === 'completed' && tab?.downloads) completed.set(tab.downloads, (completed.get(tab.downloads) ?? 0) + 1);
      });
      tab.counting = true;
    }
    tab.downloads = downloads;
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads, eventsEnabled: true });
    if (reuse) {
      // The one field a set does not clear and a load leaves empty; the focus as after a load.
      await page.evaluate(() => {
        (document.getElementById('key') as HTMLInputElement).value = '';
        (document.activeElement as HTMLElement | null)?.blur();
      });
      return { page, downloads, errors };
    }
    tab.at = undefined;
    await page.setBypassCSP(axe);
    await page.setViewport(viewport);
    await page.goto(target);
    await page.evaluate(watchChoices, KEPT_CHOICES);
    if (axe) await page.addScriptTag({ content: axeSource() });
    tab.at = target;
    tab.viewport = size;
    return { page, downloads, errors };
  }

  return { openPage, url: () => url };
}

/** What the page shows after a load: the row count, the error strip, the time to the table. */
export async function shown(page: Page): Promise<{ rows: string; error: string; tableMs: number }> {
  return page.evaluate(() => ({
    rows: document.getElementById('count')!.textContent!,
    error: document.getElementById('error')!.hidden ? '' : document.getElementById('error')!.textContent!,
    tableMs: Number(document.body.dataset.tableMs),
  }));
}

/** Opens files through the page's file input (as its Open files… button does) and waits for the table. */
export async function drop(page: Page, files: string[], key = ''): Promise<{ rows: string; error: string; tableMs: number }> {
  await page.evaluate(() => delete document.body.dataset.ready);
  await page.$eval('#key', (el, k) => ((el as HTMLInputElement).value = k), key);
  const input = await page.$('#pick-files');
  await input!.uploadFile(...files);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 10_000 });
  return shown(page);
}

/** Types into the filter box and waits until the table applied it. */
export async function filter(page: Page, text: string): Promise<void> {
  await page.$eval('#filter', (el, t) => {
    (el as HTMLInputElement).value = t;
    el.dispatchEvent(new Event('input'));
  }, text);
  await page.waitForFunction((t) => document.body.dataset.filter === t, {}, text);
}

/** Downloads Chromium reported complete, by the downloads folder of the openPage they went to. */
const completed = new Map<string, number>();

/**
 * Waits for one new file in `dir` (not `except`: the downloads before it, each complete) to be complete, and returns
 * its name and bytes.
 */
export async function downloaded(dir: string, except: string[] = [], timeout = 10_000): Promise<{ name: string; bytes: Uint8Array }> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => !except.includes(f) && !f.endsWith('.crdownload')) : [];
    if (files.length > 1) throw new Error(`several downloads: ${files.join(', ')}`);
    if (files.length === 1 && (completed.get(dir) ?? 0) > except.length) return { name: files[0]!, bytes: new Uint8Array(readFileSync(join(dir, files[0]!))) };
    if (Date.now() > deadline) throw new Error('nothing was downloaded');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Clicks an extract button and returns the files of the .zip the page downloads. */
export async function extract(page: Page, downloads: string, button: '#extract-all' | '#extract-shown'): Promise<Map<string, Uint8Array>> {
  await page.evaluate(() => delete document.body.dataset.extracted);
  const before = existsSync(downloads) ? readdirSync(downloads) : [];
  await page.click(button);
  await page.waitForSelector('body[data-extracted]', { timeout: 20_000 });
  const zip = await downloaded(downloads, before);
  expect(zip.name).toMatch(/\.zip$/);
  return new Map(Object.entries(unzipSync(zip.bytes)));
}

/** A glob matching exactly these paths (every character but letters, digits and `/._-` escaped). */
function exactly(paths: readonly string[]): string {
  const each = paths.map((p) => p.replace(/[^A-Za-z0-9/._-]/g, '\\$&'));
  return each.length === 1 ? each[0]! : `{${each.join(',')}}`;
}

/** unpacked's answers by its arguments, for every page test file of this worker process (unpack of corpus files). */
const unpackedBefore = new Map<string, Promise<ReadonlyMap<string, string>>>();

/**
 * What `unpack` writes for the same files (the manifest aside), as sha256 by path; with `only`, those paths alone.
 * Asked again with the same arguments, the answer of the first time (four tests compare with the Oodle container's).
 */
export function unpacked(inputs: string[], key?: string, only?: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const args = JSON.stringify([inputs, key ?? '', only ?? null]);
  let answer = unpackedBefore.get(args);
  if (!answer) {
    answer = unpackNow(inputs, key, only);
    unpackedBefore.set(args, answer);
    answer.catch(() => unpackedBefore.delete(args));
  }
  return answer;
}

async function unpackNow(inputs: string[], key?: string, only?: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const out = fresh('unpack');
  const r = await unpack(inputs.filter((p) => /\.(utoc|pak)$/i.test(p)), out, { threads: 0, ...(key ? { keys: new KeyRing().add(parseAesKey(key)) } : {}), ...(only ? { filter: exactly(only) } : {}) });
  expect(r.failures).toEqual([]);
  const files = new Map(listFiles(out).filter((f) => f !== MANIFEST_NAME).map((f) => [f, sha(readFileSync(join(out, f)))]));
  rmSync(out, { recursive: true, force: true });
  return files;
}

export function expectSameFiles(zip: Map<string, Uint8Array>, reference: ReadonlyMap<string, string>): void {
  expect([...zip.keys()].sort()).toEqual([...reference.keys()].sort());
  for (const [path, bytes] of zip) expect(sha(bytes), path).toBe(reference.get(path));
}

/** The SHA-256 of a row's bytes as the page reads them for Download. */
export function rowSha256(page: Page, idx: number): Promise<string> {
  return page.evaluate((i) => (window as unknown as { iostoreWeb: PageHooks }).iostoreWeb.rowSha256(i), idx);
}

/** The loaded rows and containers, as the page holds them. */
export function loadedSet(page: Page): Promise<{ rows: Array<{ path: string; container: number; compression: string; overridden: boolean; size: number }>; containers: Array<{ path: string; label: string }> }> {
  return page.evaluate(() => {
    const l = (window as unknown as { iostoreWeb: PageHooks }).iostoreWeb.state.loaded!;
    return { rows: l.rows.map((r) => ({ path: r.path, container: r.container, compression: r.compression, overridden: r.overridden, size: r.size })), containers: l.containers.map((c) => ({ path: c.path, label: c.label })) };
  });
}
