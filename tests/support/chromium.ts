// Real Chromium for the site tests: Debian's `chromium` (or CHROMIUM_PATH), driven by playwright-core,
// headless and with its background network traffic off, so a page's only requests are its own. One Chromium
// per run (tests/support/chromium-server.ts); each test file connects to it and works in its own contexts.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { serveNode, type NodeServer } from '../../src/entry/node.ts';
import type { SqliteStore } from '../../src/storage/sqlite.ts';
import { REPO_ROOT } from './cli.ts';

export { CHROMIUM, HAVE_CHROMIUM } from './chromium-server.ts';
/** Where the Chromium tests write their screenshots (gitignored). */
export const SHOTS = join(REPO_ROOT, 'screenshots');

/**
 * The run's Chromium, connected: its `close()` closes this file's contexts and disconnects, and the browser goes on
 * for the other files (the run closes it at its end).
 */
export async function launchChromium(): Promise<Browser> {
  const r = await fetch(inject('chromiumBroker'));
  const text = await r.text();
  if (!r.ok) throw new Error(`the run's Chromium did not start:\n${text}`);
  return chromium.connect(text, { timeout: 60_000 });
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
