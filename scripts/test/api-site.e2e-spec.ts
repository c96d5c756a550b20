import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildApiDocs } from '../api-docs.mjs';

/**
 * The API reference (`npm run docs`, scripts/api-docs.mjs) as a reader uses it from the file
 * system: built into a folder of its own; every internal link of every page, and of the
 * navigation and search data, crawled from disk (each must name an existing file and, with an
 * anchor, an element of that file); every page loaded in headless Chromium from its file:// URL
 * without a console error or a failed request; the search finding an export by its name.
 */
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * On a file:// page Chromium refuses the icons' SVG sprite (assets/icons.svg) as another origin;
 * TypeDoc's assets/icons.js then points every icon at a copy of the sprite inside the page. Those
 * refusals are the only messages let through, and each page is checked to show its icons.
 */
const spriteRefused = /^Unsafe attempt to load URL file:\S*\/assets\/icons\.svg#icon-[\w-]+ from frame with URL file:/;

interface Link {
  from: string;
  href: string;
}

/** Every file under `dir` (paths relative to it, with `/`). */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

/** The internal links of the site: `href` / `src` of its pages and the URLs of its navigation and search data. */
function internalLinks(site: string, pages: string[]): Link[] {
  const links: Link[] = [];
  for (const page of pages) {
    for (const [, href] of readFileSync(join(site, page), 'utf8').matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(href!)) links.push({ from: page, href: href! });
    }
  }
  // The navigation and the search index are compressed JSON inside scripts; their paths are relative to the site root.
  for (const [script, key] of [['assets/navigation.js', 'path'], ['assets/search.js', 'url']] as const) {
    const data = /"([A-Za-z0-9+/=]+)"/.exec(readFileSync(join(site, script), 'utf8'))?.[1];
    if (!data) throw new Error(`${script} holds no data`);
    const json = inflateSync(Buffer.from(data, 'base64')).toString('utf8');
    for (const [, url] of json.matchAll(new RegExp(`"${key}":"([^"]+)"`, 'g'))) links.push({ from: script, href: url! });
  }
  return links;
}

/** The links that name a missing file, or an anchor that is not an `id` / `name` of their file. */
function brokenLinks(site: string, links: Link[]): string[] {
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string): Set<string> => {
    let set = anchorsOf.get(file);
    if (!set) {
      set = new Set([...readFileSync(file, 'utf8').matchAll(/\s(?:id|name)="([^"]+)"/g)].map((match) => match[1]!));
      anchorsOf.set(file, set);
    }
    return set;
  };
  const broken: string[] = [];
  for (const { from, href } of links) {
    const [path = '', anchor] = href.split('#', 2);
    const base = from.startsWith('assets/') ? site : dirname(join(site, from));
    const target = path === '' ? join(site, from) : resolve(base, decodeURIComponent(path));
    if (!target.startsWith(site) || !existsSync(target)) broken.push(`${from}: ${href} (no such file)`);
    else if (anchor && !anchors(target).has(decodeURIComponent(anchor))) broken.push(`${from}: ${href} (no such anchor)`);
  }
  return broken;
}

/** Loads `file` of the site; resolves to the problems Chromium reported, after the page's scripts ran. */
async function load(page: Page, url: string): Promise<string[]> {
  const problems: string[] = [];
  const onConsole = (message: { type(): string; text(): string }): void => {
    if (message.type() === 'error' && !spriteRefused.test(message.text())) problems.push(`console: ${message.text()}`);
  };
  const onError = (error: Error): void => void problems.push(`page error: ${error.message}`);
  const onFailed = (request: { url(): string }): void => {
    if (!request.url().endsWith('/assets/icons.svg')) problems.push(`failed request: ${request.url()}`);
  };
  page.on('console', onConsole);
  page.on('pageerror', onError);
  page.on('requestfailed', onFailed);
  try {
    await page.goto(url, { waitUntil: 'load' });
    // Ready: the navigation is drawn from assets/navigation.js and the icons point into the page.
    await page.waitForFunction(
      () =>
        document.querySelector('#tsd-nav-container a') !== null &&
        [...document.querySelectorAll('use')].every((use) => use.getAttribute('href')?.startsWith('#')),
      undefined,
      // A fixed interval: animation frames, the default, hardly run in background tabs.
      { timeout: 10_000, polling: 20 },
    );
    const missingIcons = await page.evaluate(() =>
      [...document.querySelectorAll('use')].map((use) => use.getAttribute('href') ?? '').filter((href) => document.getElementById(href.slice(1)) === null),
    );
    if (missingIcons.length > 0) problems.push(`icons not in the page: ${[...new Set(missingIcons)].join(', ')}`);
  } catch (error) {
    problems.push(`did not load: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    page.off('console', onConsole);
    page.off('pageerror', onError);
    page.off('requestfailed', onFailed);
  }
  return problems;
}

describe('the API reference site (npm run docs), from the file system', () => {
  let site: string;
  let pages: string[];
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`node scripts/ensure-tools.mjs chromium\` (npm test does), or set CHROMIUM_PATH.`);
    site = mkdtempSync(join(tmpdir(), 'api-site-'));
    await buildApiDocs(site);
    pages = filesOf(site).filter((file) => file.endsWith('.html'));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (site) rmSync(site, { recursive: true, force: true });
  });

  it('has a page for each entry point of the published packages, named as it is imported', () => {
    const modules = pages.filter((page) => page.startsWith('modules/'));
    for (const name of ['core', 'core/testing', 'core/otel', 'nestjs', 'nestjs/admin', 'nestjs/terminus', 'nestjs/testing']) {
      expect(modules).toContain(`modules/_durable-timeout_${name.replace('/', '_')}.html`);
    }
    expect(pages).toContain('classes/_durable-timeout_core.DurableTimeouts.html');
  });

  it('has no internal link to a missing file or anchor (pages, navigation, search index)', () => {
    const links = internalLinks(site, pages);
    expect(links.length).toBeGreaterThan(pages.length);
    expect(brokenLinks(site, links)).toEqual([]);
  });

  it('reports a link to a missing page and a link to a missing anchor (the check itself)', () => {
    const page = 'classes/_durable-timeout_core.DurableTimeouts.html';
    const links = [
      { from: page, href: '../modules/no-such-module.html' },
      { from: page, href: '#no-such-member' },
      { from: page, href: '#constructor' },
      { from: page, href: '../modules/_durable-timeout_core.html' },
    ];
    expect(brokenLinks(site, links)).toEqual([`${page}: ../modules/no-such-module.html (no such file)`, `${page}: #no-such-member (no such anchor)`]);
  });

  it('loads every page in Chromium without a console error, a script error or a failed request', async () => {
    const tabs = await Promise.all([1, 2, 3, 4].map(() => browser.newPage()));
    const queue = [...pages];
    const problems: string[] = [];
    await Promise.all(
      tabs.map(async (tab) => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          for (const problem of await load(tab, pathToFileURL(join(site, next)).href)) problems.push(`${next}: ${problem}`);
        }
      }),
    );
    await Promise.all(tabs.map((tab) => tab.close()));
    expect(problems).toEqual([]);
  }, 180_000);

  it('finds an export by its name in the search and opens its page', async () => {
    const page = await browser.newPage();
    try {
      expect(await load(page, pathToFileURL(join(site, 'index.html')).href)).toEqual([]);
      await page.click('#tsd-search-trigger');
      await page.fill('#tsd-search-input', 'DurableTimeouts');
      const first = page.locator('#tsd-search-results li a').first();
      await first.waitFor({ timeout: 10_000 });
      expect(await first.textContent()).toContain('DurableTimeouts');
      await first.click();
      await page.waitForURL(/\/classes\/_durable-timeout_core\.DurableTimeouts\.html$/, { timeout: 10_000 });
      expect(await page.locator('h1').textContent()).toContain('DurableTimeouts');
    } finally {
      await page.close();
    }
  });
});
