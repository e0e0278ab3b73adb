// The site in real Chromium over the Node server: the release's numbers, both games' texts, injected script that
// never runs, pages without JavaScript, screenshots at desktop and phone widths (screenshots/, gitignored).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ConsoleMessage, Dialog, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, HAVE_CHROMIUM, SHOTS, siteInChromium, tablesWithoutHeaders } from '../support/chromium.ts';
import { buildFixture, EVIL_MODEL } from './fixture.ts';

const haveChromium = HAVE_CHROMIUM;
if (!haveChromium)
  console.warn(
    `[browser tests] skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run does it as root)`,
  );

describe.skipIf(!haveChromium)('the site in Chromium', () => {
  // the fixture with its stored reports, at the rounds they were built with: the pages read them, computing none
  const site = siteInChromium(async () => (await buildFixture(undefined, { reports: true })).store, {
    bootstrapRounds: 1000,
    timeoutMs: 120_000,
  });

  /** The file's page (site.page), recording every dialog, every request and every console message until closed. */
  async function open(opts: { width?: number; height?: number; javaScriptEnabled?: boolean } = {}) {
    const page = await site.page(opts);
    const dialogs: string[] = [];
    const requests: string[] = [];
    const console: string[] = [];
    const onDialog = (d: Dialog) => {
      dialogs.push(d.message());
      void d.dismiss();
    };
    const onRequest = (r: Request) => requests.push(r.url());
    const onConsole = (m: ConsoleMessage) => console.push(m.text());
    page.on('dialog', onDialog).on('request', onRequest).on('console', onConsole);
    const close = async () => {
      page.off('dialog', onDialog).off('request', onRequest).off('console', onConsole);
    };
    return { page, dialogs, requests, console, close };
  }

  it('the leaderboard details show the MT-Bench release numbers', async () => {
    const { page, close } = await open();
    await page.goto(`${site.server.url}/leaderboard`);
    const row = page
      .locator('section', { has: page.getByRole('heading', { name: 'Judge: gpt-4' }) })
      .getByRole('row', { name: /^1 gpt-4 / });
    await expect(row.locator('td').nth(1).textContent()).resolves.toBe('617');
    await expect(row.locator('td').nth(2).textContent()).resolves.toBe('45');
    await expect(row.locator('td').nth(3).textContent()).resolves.toBe('138');
    // the human experts' table too (the paper's Table: gpt-4 first)
    const human = page.locator('section', { has: page.getByRole('heading', { name: 'Judge: human' }) });
    await expect(human.getByRole('row').nth(1).locator('th').textContent()).resolves.toBe('gpt-4');
    // the chart image loaded (an SVG from the app itself)
    const chart = page.getByRole('img', {
      name: /Bradley–Terry rating of each model under judge gpt-4 with its 95% interval/,
    });
    await chart.scrollIntoViewIfNeeded();
    await expect
      .poll(() => chart.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    await close();
  });

  it('the filters work without JavaScript (a plain GET form)', async () => {
    const { page, close } = await open({ javaScriptEnabled: false });
    await page.goto(`${site.server.url}/leaderboard`);
    await page.getByLabel('Judge', { exact: true }).selectOption('gpt-4');
    await page.getByLabel('Turn', { exact: true }).selectOption('1');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/turn=1/);
    const row = page.getByRole('row', { name: /^1 gpt-4 / });
    const wins = Number(await row.locator('td').nth(1).textContent());
    expect(wins).toBeGreaterThan(0);
    expect(wins).toBeLessThan(617);
    await expect(page.getByRole('heading', { name: 'Judge: human' }).count()).resolves.toBe(0);
    await close();
  });

  it("the match browser shows the question, both answers and both games' texts with their verdicts", async () => {
    const { page, close } = await open();
    await page.goto(`${site.server.url}/matches`);
    await page.getByLabel('Question').selectOption('81');
    await page.getByLabel('Model A').selectOption('gpt-4');
    await page.getByLabel('Model B').selectOption('claude-v1');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/question=81/);
    const turn1 = page.locator('section.turn').first();
    await expect(turn1.locator('.answer h3').allTextContents()).resolves.toEqual(['gpt-4', 'claude-v1']);
    const games = turn1.locator('article.game');
    await expect(games.count()).resolves.toBe(2);
    const heads = await games.locator('h4').allTextContents();
    expect(heads[0]).toMatch(
      /mock\/longer · order AB: gpt-4 shown as Assistant A · verdict (gpt-4|claude-v1|tie)/,
    );
    expect(heads[1]).toMatch(/order BA: claude-v1 shown as Assistant A/);
    for (const text of await games.locator('> .judge-text').allTextContents())
      expect(text).toMatch(/^Mock evaluation \(longer\)\. \[\[[ABC]\]\]$/);
    await close();
  });

  it('injected <script>, onerror handlers and javascript: links execute nothing: no dialog, no request', async () => {
    const { page, dialogs, requests, close } = await open();
    await page.goto(`${site.server.url}/matches?question=81&a=${EVIL_MODEL}&b=gpt-4`);
    await page.waitForLoadState('networkidle');
    // the text is on the page, as text
    await expect(page.locator('.answer').first().textContent()).resolves.toContain(
      '<script>alert(1)</script>',
    );
    await expect(page.locator('article.game .judge-text').first().textContent()).resolves.toContain(
      '<img src=x onerror=alert(1)>',
    );
    // open every details element (prompts contain the answers too) and click every link inside the untrusted text
    for (const d of await page.locator('details').all())
      await d.evaluate((el: HTMLDetailsElement) => (el.open = true));
    const links = page.locator('.answer a, .judge-text a');
    for (const a of await links.all()) {
      expect(await a.getAttribute('href')).not.toMatch(/^\s*javascript:/i);
    }
    await expect(
      page.locator('.answer script, .answer img, .answer svg, .judge-text *').count(),
    ).resolves.toBe(0);
    await page.waitForTimeout(300);
    expect(dialogs).toEqual([]);
    const origin = new URL(site.server.url).origin;
    for (const u of requests) {
      const url = new URL(u);
      expect(url.origin, u).toBe(origin);
      expect(url.pathname, u).toMatch(/^\/(matches|static\/site\.(css|js)|charts\/.*\.svg)$/);
    }
    await close();
  });

  const PAGES: [string, string][] = [
    ['leaderboard', '/'],
    ['judges', '/judges'],
    ['matrix', '/matrix?judge=gpt-4'],
    ['model', '/models/gpt-4?judge=gpt-4'],
    ['match', '/matches?question=81&a=gpt-4&b=claude-v1'],
    ['runs', '/runs'],
  ];
  const SIZES = [
    ['desktop', 1280, 900],
    ['phone', 390, 844],
  ] as const;

  it('screenshots of the main pages at desktop and phone widths; nothing overflows the phone screen', async () => {
    for (const [size, width, height] of SIZES) {
      const { page, close } = await open({ width, height });
      for (const [name, path] of PAGES) {
        await page.goto(site.server.url + path);
        await page.waitForLoadState('networkidle');
        await settleImages(page);
        // tables scroll inside their own box; the page itself never scrolls sideways
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${name} at ${size}`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: join(SHOTS, `${name}-${size}.png`), fullPage: true });
      }
      await close();
    }
    for (const [size] of SIZES)
      for (const [name] of PAGES) expect(existsSync(join(SHOTS, `${name}-${size}.png`))).toBe(true);
  }, 240_000); // twelve full-page screenshots: 61 s at load average 27 on the 2-core machine (over the default 60 s)

  it('every form control has a label and every table a caption and column headers', async () => {
    const { page, close } = await open();
    for (const [, path] of PAGES) {
      await page.goto(site.server.url + path);
      const unlabeled = await page.evaluate(
        () =>
          Array.from(document.querySelectorAll('select, input')).filter(
            (el) => !(el as HTMLSelectElement).labels?.length,
          ).length,
      );
      expect(unlabeled, path).toBe(0);
      const bad = await tablesWithoutHeaders(page);
      expect(bad, path).toBe(0);
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    }
    await close();
  });
});

async function settleImages(page: Page): Promise<void> {
  await page.evaluate(async () => {
    for (const img of Array.from(document.images)) {
      img.loading = 'eager';
      if (!img.complete)
        await new Promise((r) => {
          img.addEventListener('load', r, { once: true });
          img.addEventListener('error', r, { once: true });
        });
    }
  });
}
