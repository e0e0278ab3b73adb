// /leaderboard and /runs in real Chromium at 390 and 1,280 px (issue 12, item 19): a phone keeps rank, model, win
// rate, rating and interval in view; 1,280 px shows every column without sideways scrolling; charts show at their
// own size (phones get the 360 px variant), so their text is 11 px or more on screen.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, HAVE_CHROMIUM, siteInChromium } from '../support/chromium.ts';
import { buildFixture } from './fixture.ts';

const ok = HAVE_CHROMIUM && !!process.env.MTBENCH_DIR;
if (!ok)
  console.warn(
    `[browser widths] skipped: needs Chromium at ${CHROMIUM} and MTBENCH_DIR (the fixture imports the release)`,
  );

/** The header texts of the gpt-4 leaderboard table that are actually displayed. */
const shownHeaders = (page: Page) =>
  page.evaluate(() => {
    const section = Array.from(document.querySelectorAll('section.board')).find(
      (s) => s.querySelector('h2')?.textContent === 'Judge: gpt-4',
    )!;
    return Array.from(section.querySelectorAll('thead th'))
      .filter((th) => getComputedStyle(th).display !== 'none')
      .map((th) => th.textContent);
  });
/** How far each table's box would have to scroll sideways (0: it fits); `pairwise`: only the leaderboard tables. */
const tableOverflow = (page: Page, pairwise = false) =>
  page.evaluate(
    (pw) =>
      Math.max(
        0,
        ...Array.from(document.querySelectorAll('.scroll'))
          .filter((s) => !pw || /pairwise-all/.test(s.querySelector('caption')?.textContent ?? ''))
          .map((s) => s.scrollWidth - s.clientWidth),
      ),
    pairwise,
  );

describe.skipIf(!ok)('the site at 390 and 1,280 px', () => {
  const site = siteInChromium(async () => (await buildFixture()).store, {
    bootstrapRounds: 100,
    timeoutMs: 180_000,
  });

  const open = async (width: number) => ({ page: await site.page({ width }), close: async () => {} });

  it('390 px: the leaderboard shows the columns that matter without sideways scrolling; the rest expand on request', async () => {
    const { page, close } = await open(390);
    await page.goto(`${site.server.url}/leaderboard`);
    expect(await shownHeaders(page)).toEqual([
      '#',
      'model',
      'adjusted win rate',
      'BT rating',
      '95% interval',
    ]);
    expect(await tableOverflow(page, true)).toBeLessThanOrEqual(0);
    const section = page.locator('section.board', {
      has: page.getByRole('heading', { name: 'Judge: gpt-4' }),
    });
    await section.getByLabel(/all columns/).check();
    expect(await shownHeaders(page)).toEqual([
      '#',
      'model',
      'win',
      'loss',
      'tie',
      'of which inconsistent',
      'error',
      'win rate',
      'adjusted win rate',
      'BT rating',
      '95% interval',
      'rank range (joint)',
      'rank range (marginal)',
    ]);
    await close();
  });

  it('1,280 px: every leaderboard column shows, with no toggle; /runs fits without scrolling sideways', async () => {
    const { page, close } = await open(1280);
    await page.goto(`${site.server.url}/leaderboard`);
    expect(await shownHeaders(page)).toHaveLength(13);
    expect(await page.locator('.allcols').first().isVisible()).toBe(false);
    await page.goto(`${site.server.url}/runs`);
    expect(await page.locator('table').count()).toBeGreaterThan(0);
    expect(await tableOverflow(page)).toBeLessThanOrEqual(0);
    await close();
  });

  /** Every chart image on the page: its URL, its natural and shown width, and the smallest text in its SVG. */
  const charts = (page: Page) =>
    page.evaluate(async () => {
      const out = [];
      for (const img of Array.from(document.querySelectorAll('figure img')) as HTMLImageElement[]) {
        img.loading = 'eager';
        img.scrollIntoView();
        if (!img.complete || !img.naturalWidth)
          await new Promise(
            (r) => (
              img.addEventListener('load', r, { once: true }),
              img.addEventListener('error', r, { once: true })
            ),
          );
        const svg = await (await fetch(img.currentSrc)).text();
        const sizes = Array.from(svg.matchAll(/font-size:([\d.]+)px/g)).map((m) => Number(m[1]));
        out.push({
          src: img.currentSrc,
          natural: img.naturalWidth,
          shown: img.getBoundingClientRect().width,
          right: img.getBoundingClientRect().right,
          font: Math.min(...sizes),
        });
      }
      return out;
    });

  for (const width of [390, 1280])
    it(`${width.toLocaleString('en-US')} px: every chart shows at its own size, inside the screen, with texts of 11 px or more`, async () => {
      const { page, close } = await open(width);
      for (const path of ['/', '/judges', '/matrix?judge=gpt-4', '/models/gpt-4?judge=gpt-4']) {
        await page.goto(`${site.server.url}${path}`);
        const found = await charts(page);
        expect(found.length, path).toBeGreaterThan(0);
        for (const c of found) {
          expect(c.src.includes('size=narrow'), c.src).toBe(width < 600);
          // drawn at 1:1 (the figure's border may take a pixel or two), never past the screen's edge
          expect(c.shown / c.natural, c.src).toBeGreaterThan(0.98);
          expect(c.right, c.src).toBeLessThanOrEqual(width);
          expect(c.font * (c.shown / c.natural), c.src).toBeGreaterThanOrEqual(11);
        }
      }
      await close();
    });
});
