/**
 * The page's Properties tab in headless Chromium: a package's properties as the library reads them (the saved JSON
 * is the library's, byte for byte), the type mappings asked for and used for unversioned data, and an unchanged
 * document applied back giving the package's own bytes.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { ContainerReader, findPackageChunk, packageNamesFromToc, parseUsmap, readLegacyProps, readZenProps, scriptObjectsFromReader } from '../../src/index.js';
import { corpusPath } from '../corpus.js';
import { canRun, downloaded, drop, filter, useBrowser } from './browser.js';

const LAMP = corpusPath('legacy-games', 'ue5.4-billiards', 'BP_Table_Lamp.uasset');
const LAMP_UEXP = LAMP.replace(/\.uasset$/, '.uexp');
const LAMP_USMAP = corpusPath('legacy-games', 'ue5.4-billiards', '5.4.3-34507850+++UE5+Release-5.4-DeepSpace7.usmap');
const UTOC = corpusPath('ue5.8-cue4parse', 'uncompressed', 'CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc');
const GLOBAL = ['global.utoc', 'global.ucas'].map((f) => corpusPath('ue5.8-cue4parse', 'global', f));

async function openProps(page: Page): Promise<void> {
  await page.click('#details [data-view="props"]');
  await page.waitForSelector('#view .props-tree', { timeout: 15_000 });
}

/** The document the tab saves (Save .json), parsed. */
async function savedJson(page: Page, downloads: string, except: string[] = []): Promise<{ name: string; json: unknown }> {
  await page.click('#view [data-action="save-props"]');
  const f = await downloaded(downloads, except);
  return { name: f.name, json: JSON.parse(Buffer.from(f.bytes).toString('utf8')) };
}

describe.skipIf(!canRun)('Properties tab in headless Chromium', () => {
  const { openPage } = useBrowser();

  it('an unversioned legacy package: asks for the mappings, then reads with them what the library reads', async () => {
    const { page, downloads, errors } = await openPage();
    await drop(page, [LAMP, LAMP_UEXP]);
    await page.waitForSelector('#details .pkg-name');
    await openProps(page);
    // Without mappings every export keeps its bytes, and the tab says what it needs.
    expect(await page.$eval('#view .mappings', (el) => el.className)).toContain('warn');
    expect(await page.$$eval('#view .props-export.raw', (els) => els.length)).toBe(9);

    // The .usmap chosen with the picker: the tab reads again.
    const input = await page.$('#pick-usmap');
    await input!.uploadFile(LAMP_USMAP);
    await page.waitForSelector('body[data-mappings]');
    await page.waitForSelector('#view .mappings.muted', { timeout: 15_000 });
    expect(await page.$eval('#pick-usmap-button', (el) => el.textContent)).toBe('Mappings: 5.4.3-34507850+++UE5+Release-5.4-DeepSpace7.usmap');
    expect(await page.$$eval('#view .props-export.raw', (els) => els.length)).toBe(0);
    // A component's properties, opened in the tree.
    await page.click('#view [data-export="PointLight_GEN_VARIABLE"] > summary');
    await page.waitForSelector('#view [data-export="PointLight_GEN_VARIABLE"] > .kids > .prop');
    const names = await page.$$eval('#view [data-export="PointLight_GEN_VARIABLE"] > .kids > .prop', (els) => els.map((e) => (e as HTMLElement).dataset.name));
    expect(names).toContain('RelativeLocation');

    const lib = readLegacyProps(new Uint8Array(readFileSync(LAMP)), new Uint8Array(readFileSync(LAMP_UEXP)), { source: 'BP_Table_Lamp.uasset', mappings: parseUsmap(new Uint8Array(readFileSync(LAMP_USMAP))) });
    const saved = await savedJson(page, downloads);
    expect(saved.name).toBe('BP_Table_Lamp.uasset.props.json');
    expect(saved.json).toEqual(JSON.parse(JSON.stringify(lib.json)));
    expect(errors).toEqual([]);
  });

  it('a tagged zen package of a container: DataTable rows in the tree, the library\'s JSON, and an unchanged document applied back', async () => {
    const { page, downloads, errors } = await openPage();
    await drop(page, [UTOC, UTOC.replace(/\.utoc$/, '.ucas'), ...GLOBAL]);
    await filter(page, 'DT_AllProperties.uasset');
    await page.click('#window .tr');
    await page.waitForSelector('#details .pkg-name', { timeout: 10_000 });
    await openProps(page);
    expect(await page.$$eval('#view .mappings', (els) => els.length)).toBe(0);
    const table = '#view [data-export="DT_AllProperties"]';
    expect(await page.$eval(`${table} > summary`, (el) => el.textContent)).toContain('DataTable');
    // A tree node's children are made on its toggle event, which comes after the click: each level is waited for.
    await page.click(`${table} .prop.data > summary`);
    await (await page.waitForSelector(`${table} .prop.data > .kids > .item > summary`))!.click();
    await page.waitForSelector(`${table} .prop.data > .kids > .item > .kids > .item > summary`);
    const rows = await page.$$eval(`${table} .prop.data > .kids > .item > .kids > .item > summary`, (els) => els.map((e) => e.textContent));
    expect(rows).toEqual(['[0] Alpha', '[1] Beta', '[2] Defaults']);

    const reader = await ContainerReader.open(UTOC);
    const global = await ContainerReader.open(GLOBAL[0]!);
    const scriptObjects = await scriptObjectsFromReader(global);
    const index = findPackageChunk(reader.toc, 'DT_AllProperties', packageNamesFromToc(reader.toc));
    const bytes = await reader.readChunk(index);
    const path = reader.toc.chunkPath(index)!;
    await reader.close();
    await global.close();
    const lib = readZenProps(bytes, { source: path, ...(scriptObjects ? { scriptObjects } : {}) });
    const saved = await savedJson(page, downloads);
    expect(saved.json).toEqual(JSON.parse(JSON.stringify(lib.json)));

    // Apply .json… with the saved document: the package it downloads is the chunk's own bytes.
    const picker = await page.$('#view input[data-role="apply-props"]');
    await picker!.uploadFile(`${downloads}/${saved.name}`);
    const back = await downloaded(downloads, [saved.name]);
    expect(back.name).toBe('DT_AllProperties.uasset');
    expect(Buffer.compare(back.bytes, bytes)).toBe(0);
    expect(errors).toEqual([]);
  });
});
