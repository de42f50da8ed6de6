/**
 * What the page tests share: one headless Chromium per worker process (Debian's `chromium`, driven by puppeteer-core),
 * the page served by `iostore web`, and helpers that feed it files and read what it shows, downloads and extracts.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/**
 * The browser and the server for the file's tests; the returned helpers use them. The file's tests take turns on one
 * tab: each openPage loads the page afresh in it (a new document, its own JavaScript state; a new tab cost ~0.35 CPU s
 * more), with the test's viewport, a fresh downloads folder and the page's own Content-Security-Policy.
 */
export function useBrowser() {
  let browser: Browser;
  let url: string;
  let tab: { page: Page; cdp: CDPSession; onError?: (e: Error) => void } | undefined;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'iostore-web-'));
    ({ browser, url } = await sharedBrowser());
  }, 30_000);

  afterAll(async () => {
    if (tab && !tab.page.isClosed()) await tab.page.close();
    tab = undefined;
    rmSync(tmp, { recursive: true, force: true });
  });

  async function openPage(at?: string, viewport = { width: 1400, height: 820 }): Promise<Opened> {
    if (!tab || tab.page.isClosed()) {
      const page = await browser.newPage();
      tab = { page, cdp: await page.createCDPSession() };
    }
    const { page, cdp } = tab;
    const errors: string[] = [];
    if (tab.onError) page.off('pageerror', tab.onError);
    tab.onError = (e) => errors.push(String(e));
    page.on('pageerror', tab.onError);
    await page.setBypassCSP(false);
    await page.setViewport(viewport);
    const downloads = fresh('downloads');
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await page.goto(at ?? url);
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

/** Waits for one new file in `dir` (not `except`) to be complete, and returns its name and bytes. */
export async function downloaded(dir: string, except: string[] = [], timeout = 10_000): Promise<{ name: string; bytes: Uint8Array }> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => !except.includes(f) && !f.endsWith('.crdownload')) : [];
    if (files.length === 1) {
      const p = join(dir, files[0]!);
      const size = statSync(p).size;
      await new Promise((r) => setTimeout(r, 100));
      if (statSync(p).size === size) return { name: files[0]!, bytes: new Uint8Array(readFileSync(p)) };
    }
    if (files.length > 1) throw new Error(`several downloads: ${files.join(', ')}`);
    if (Date.now() > deadline) throw new Error('nothing was downloaded');
    await new Promise((r) => setTimeout(r, 50));
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

/** What `unpack` writes for the same files (the manifest aside), as sha256 by path; with `only`, those paths alone. */
export async function unpacked(inputs: string[], key?: string, only?: readonly string[]): Promise<Map<string, string>> {
  const out = fresh('unpack');
  const r = await unpack(inputs.filter((p) => /\.(utoc|pak)$/i.test(p)), out, { threads: 0, ...(key ? { keys: new KeyRing().add(parseAesKey(key)) } : {}), ...(only ? { filter: exactly(only) } : {}) });
  expect(r.failures).toEqual([]);
  return new Map(listFiles(out).filter((f) => f !== MANIFEST_NAME).map((f) => [f, sha(readFileSync(join(out, f)))]));
}

export function expectSameFiles(zip: Map<string, Uint8Array>, reference: Map<string, string>): void {
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
