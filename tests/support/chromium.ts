// Real Chromium for the site tests: Debian's `chromium` (or CHROMIUM_PATH), driven by playwright-core,
// headless and with its background network traffic off, so a page's only requests are its own.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { serveNode, type NodeServer } from '../../src/entry/node.ts';
import type { SqliteStore } from '../../src/storage/sqlite.ts';
import { REPO_ROOT } from './cli.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
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
}

/**
 * For the tests of one describe: before them, the store `open` makes, served by the Node server, and Chromium
 * (and the screenshots folder); after them, all three closed. The fields are set once the tests run.
 */
export function siteInChromium(
  open: () => Promise<SqliteStore>,
  o: { bootstrapRounds: number; timeoutMs: number },
): SiteInChromium {
  const site = {} as SiteInChromium;
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
