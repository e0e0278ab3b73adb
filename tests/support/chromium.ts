// Real headless Chromium for the site tests (playwright-core, background traffic off): Debian's
// `chromium-headless-shell` where installed (less CPU per page, docs/performance.md), else `chromium`;
// CHROMIUM_PATH overrides both.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { serveNode, type NodeServer } from '../../src/entry/node.ts';
import type { SqliteStore } from '../../src/storage/sqlite.ts';
import { REPO_ROOT } from './cli.ts';

/** Debian's headless shell: its launcher script only runs this binary */
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
export const CHROMIUM =
  process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Where the Chromium tests write their screenshots (gitignored). */
export const SHOTS = join(REPO_ROOT, 'screenshots');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: 60_000 });
}

/** How many tables on the page lack a caption or column headers (`thead th[scope=col]`). */
export function tablesWithoutHeaders(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      Array.from(document.querySelectorAll('table')).filter(
        (t) => !t.caption || !t.querySelector('thead th[scope=col]'),
      ).length,
  );
}

export interface SiteInChromium {
  store: SqliteStore;
  /** the Node server over `store` */
  server: NodeServer;
  browser: Browser;
  /**
   * The file's page with JavaScript on (or off) at `width` x `height` (default 1,280 x 900): one per setting per
   * file, resized per caller, since a new renderer process is a page load's dearest step; callers load their URL.
   */
  page(o?: { width?: number; height?: number; javaScriptEnabled?: boolean }): Promise<Page>;
}

/**
 * For the tests of one describe: before them, the store `open` makes, served by the Node server, and Chromium
 * (and the screenshots folder); after them, all three closed. The fields are set once the tests run.
 */
export function siteInChromium(
  open: () => Promise<SqliteStore>,
  o: { bootstrapRounds: number; timeoutMs: number },
): SiteInChromium {
  const pages = new Map<boolean, Promise<Page>>();
  const site = {
    async page({ width = 1280, height = 900, javaScriptEnabled = true } = {}) {
      let made = pages.get(javaScriptEnabled);
      if (!made)
        pages.set(
          javaScriptEnabled,
          (made = site.browser.newContext({ javaScriptEnabled }).then((ctx) => ctx.newPage())),
        );
      const page = await made;
      // a load that computes a page's figures in this process can outlast playwright's 30 s on a loaded machine
      page.setDefaultNavigationTimeout(90_000);
      await page.setViewportSize({ width, height });
      return page;
    },
  } as SiteInChromium;
  beforeAll(async () => {
    site.store = await open();
    site.server = await serveNode(site.store, { port: 0, bootstrapRounds: o.bootstrapRounds });
    site.browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, o.timeoutMs);
  afterAll(async () => {
    await site.browser?.close();
    await site.server?.close();
    await site.store?.close();
  });
  return site;
}
