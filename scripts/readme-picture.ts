// Makes the README's picture (docs/leaderboard.png): the home page as the site serves it over a database, at
// 1,280 x 800 in Chromium (playwright-core with Debian's chromium; CHROMIUM_PATH overrides), so the picture is
// today's page. Run it on the database `npm start` creates after a change to the home page:
//   node --import tsx scripts/readme-picture.ts --db arena.db [--out docs/leaderboard.png]
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { serveNode } from '../src/entry/node.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';

/** The picture of the home page the site serves over `file`, at 1,280 x 800, written to `out`. */
export async function readmePicture(file: string, out: string): Promise<void> {
  const shell = '/usr/lib/chromium/chromium-headless-shell';
  const executablePath = process.env.CHROMIUM_PATH ?? (existsSync(shell) ? shell : '/usr/bin/chromium');
  const store = openSqliteStore(file, { readonly: true });
  // the default bootstrap rounds: the ones `arena start` stored its reports with, so nothing is computed
  const server = await serveNode(store, { port: 0 });
  const browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const r = await page.goto(`${server.url}/`);
    if (r?.status() !== 200) throw new Error(`${server.url}/ answered ${r?.status()}`);
    // the chart below the board is a lazy image: load it now and wait, so the picture shows it drawn
    await page.evaluate(() => {
      for (const img of Array.from(document.images)) img.loading = 'eager';
    });
    await page.waitForFunction(() =>
      Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0),
    );
    await page.screenshot({ path: out });
  } finally {
    await browser.close();
    await server.close();
    await store.close();
  }
}

// run as a script (tests/web/a11y.test.ts calls readmePicture in its own process)
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string, d: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1]! : d;
  };
  const file = arg('db', '');
  if (!file || !existsSync(file))
    throw new Error(
      `usage: scripts/readme-picture.ts --db arena.db [--out docs/leaderboard.png]${file ? ` (no file ${file})` : ''}`,
    );
  const out = arg('out', new URL('../docs/leaderboard.png', import.meta.url).pathname);
  await readmePicture(file, out);
  console.log(`${out}: the home page at 1,280 x 800`);
}
