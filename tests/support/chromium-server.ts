// One Chromium per `vitest run`, shared by every test file that drives one (tests/support/chromium.ts): started by
// the run's main process (tests/support/global-setup.ts) when the first file asks for it, as a playwright browser
// server that each file connects to. Each file still works in its own browser contexts (their own pages, cookies
// and storage); what is shared is the browser's start, about 3 s of CPU per file on the 2-core machine.
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { BrowserServer } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** headless, and no network traffic of its own, so that a page's only requests are its own */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface ChromiumBroker {
  /** GET it: the browser server's WebSocket endpoint (starting Chromium on the first request), or a 500 and why */
  url: string;
  close(): Promise<void>;
}

/** A local HTTP endpoint that starts the run's Chromium on first use and tells each caller where it is. */
export async function chromiumBroker(): Promise<ChromiumBroker> {
  let browser: Promise<BrowserServer> | undefined;
  const launch = async () => {
    const { chromium } = await import('playwright-core');
    return chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, timeout: 60_000 });
  };
  const server: Server = createServer((_req, res) => {
    browser ??= launch();
    browser.then(
      (b) => res.end(b.wsEndpoint()),
      (e: unknown) => {
        browser = undefined; // the next file tries again
        res.statusCode = 500;
        res.end(String((e as Error).stack ?? e));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await (await browser?.catch(() => undefined))?.close();
    },
  };
}
