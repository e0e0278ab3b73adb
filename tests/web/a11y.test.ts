// Accessibility of every page in real Chromium at 1,280 x 800 and 390 x 844 over the `npm start` database: 0 axe
// WCAG 2.1 AA violations; tables fit or scroll in a named, focusable region; the home board has at most 6 columns
// and shows its first row; chart text has 4.5:1 contrast (the site's fixture); the focus ring 3:1.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/web/app.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { CHROMIUM, HAVE_CHROMIUM, SHOTS, siteInChromium } from '../support/chromium.ts';
import { REPO_ROOT } from '../support/cli.ts';
import { npmStartDatabase } from '../support/npm-start.ts';
import { readmePicture } from '../../scripts/readme-picture.ts';
import { buildFixture, MTBENCH_DIR } from './fixture.ts';
import { existsSync } from 'node:fs';

const ok = HAVE_CHROMIUM && existsSync(MTBENCH_DIR);
if (!ok) console.warn(`[a11y] skipped: needs Chromium at ${CHROMIUM} and the MT-Bench release (MTBENCH_DIR)`);

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
/** Pages the home page does not link to by name, each with the parameters that fill it. */
const EXTRA = [
  '/models/gpt-4?judge=gpt-4',
  '/matrix?judge=gpt-4',
  '/matches',
  '/matches?question=81&a=gpt-4&b=claude-v1',
  '/leaderboard',
  '/judges',
  '/health',
  '/style',
  '/variants',
  '/refreshes',
  '/runs',
  '/checkpoints',
];
/** The screens: a laptop's and a phone's (width, height). */
const SCREENS = [
  [1280, 800],
  [390, 844],
] as const;

/** WCAG's relative luminance and contrast ratio of two sRGB colours ([r, g, b], 0-255). */
const luminance = (c: number[]) =>
  c
    .map((v) => v / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((s, v, k) => s + v * [0.2126, 0.7152, 0.0722][k]!, 0);
const contrast = (a: number[], b: number[]) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x! + 0.05) / (y! + 0.05);
};
const rgb = (css: string) => (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);

interface AxeResult {
  violations: { id: string; help: string; nodes: { target: string[] }[] }[];
}

/** axe-core on the page as it is (evaluated through the DevTools protocol: the page's CSP stays on). */
async function axe(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const r = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run(d: Document, o: object): Promise<AxeResult> } }).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    TAGS,
  );
  return r.violations.map(
    (v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`,
  );
}

/** Every table's box: how far it overflows, and what a keyboard user and a screen reader get from it. */
const containers = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('table')).map((t) => {
      const box = t.parentElement!;
      const label = box.getAttribute('aria-labelledby');
      const labelled = label ? document.getElementById(label) : null;
      const caption = t.caption;
      return {
        caption: caption?.textContent?.slice(0, 60) ?? '',
        overflow: box.scrollWidth - box.clientWidth,
        role: box.getAttribute('role'),
        tabindex: box.getAttribute('tabindex'),
        labelledByCaption: !!labelled && labelled === caption,
        cue: caption ? getComputedStyle(caption, '::after').content : 'none',
      };
    }),
  );

describe.skipIf(!ok)('accessibility in Chromium at 1,280 and 390 px', () => {
  // the rounds `arena start` built its stored reports with, so the pages read them instead of computing
  const site = siteInChromium(async () => openSqliteStore((await npmStartDatabase()).db), {
    bootstrapRounds: 1000,
    timeoutMs: 400_000,
  });

  let pages: string[] = [];
  const open = async (width: number, height = 844) => ({
    page: await site.page({ width, height }),
    close: async () => {},
  });
  /** The HTML pages the home page links to (its navigation and its content), and the extra ones. */
  async function sitePages(page: Page): Promise<string[]> {
    await page.goto(`${site.server.url}/`);
    const linked = await page.evaluate(() =>
      Array.from(document.querySelectorAll('a[href^="/"]')).map((a) => a.getAttribute('href')!),
    );
    // one visit per page, whatever its parameters (the home page links to itself sorted by each column)
    const html = linked
      .map((h) => h.replace(/[?#].*$/, ''))
      .filter((h) => !/^\/(api|charts|static)(\/|$)|\.(csv|svg|json)$/.test(h) && !h.startsWith('/models/'));
    const paths = new Set(EXTRA.map((h) => h.replace(/[?#].*$/, '')));
    return [...EXTRA, ...new Set(html.filter((h) => !paths.has(h)))];
  }

  for (const [width, height] of SCREENS)
    it(`${width.toLocaleString('en-US')} x ${height} px: the home page's board in view; axe-core finds no WCAG 2.1 AA violation on any page; tables fit or scroll in a named, focusable region`, async () => {
      const { page, close } = await open(width, height);
      if (!pages.length) pages = await sitePages(page);
      // the home page: one board of at most 6 columns, its first row on the first screen
      await page.goto(`${site.server.url}/`);
      const board = await page.evaluate(() => {
        const t = document.querySelector<HTMLTableElement>('main table')!;
        const row = t.tBodies[0]!.rows[0]!.getBoundingClientRect();
        return {
          caption: t.caption?.textContent ?? '',
          columns: t.tHead!.rows[0]!.cells.length,
          bottom: row.bottom,
          right: row.right,
        };
      });
      expect(board.caption).toMatch(/^Judge gpt-4 ·/);
      expect(board.columns).toBeLessThanOrEqual(6);
      expect(board.bottom).toBeLessThanOrEqual(height);
      expect(board.right).toBeLessThanOrEqual(width);
      await page.screenshot({ path: join(SHOTS, `home-${width}.png`) });
      expect(pages.length).toBeGreaterThanOrEqual(12);
      const found: Record<string, string[]> = {};
      for (const path of pages) {
        const r = await page.goto(site.server.url + path);
        expect(r?.status(), path).toBe(200);
        const v = await axe(page);
        if (v.length) found[path] = v;
        // the page itself never scrolls sideways
        expect(
          await page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          ),
          path,
        ).toBeLessThanOrEqual(0);
        for (const c of await containers(page)) {
          if (width >= 1280) expect(c.overflow, `${path}: ${c.caption}`).toBeLessThanOrEqual(0);
          else if (c.overflow > 0) {
            expect({ ...c, overflow: 'some' }, `${path}: ${c.caption}`).toMatchObject({
              role: 'region',
              tabindex: '0',
              labelledByCaption: true,
            });
            expect(c.cue, `${path}: ${c.caption} has no visible scroll cue`).toMatch(/scroll/);
          }
        }
        if (path === '/judges')
          await page.screenshot({ path: join(SHOTS, `a11y-judges-${width}.png`), fullPage: true });
      }
      expect(found).toEqual({});
      await close();
    }, 240_000); // about 10 s on a quiet machine; the shared CI machine can be 20 times slower

  it('the focus ring has 3:1 contrast against the page, on links, buttons and table regions', async () => {
    const { page, close } = await open(390);
    await page.goto(`${site.server.url}/leaderboard`);
    const bg = rgb(await page.evaluate(() => getComputedStyle(document.body).backgroundColor));
    for (const selector of ['nav a', '.scroll', 'summary', '#f-show']) {
      const el = page.locator(selector).first();
      await el.focus();
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      const ring = await el.evaluate((e) => {
        const s = getComputedStyle(e);
        return {
          focused: document.activeElement === e,
          style: s.outlineStyle,
          width: s.outlineWidth,
          color: s.outlineColor,
        };
      });
      expect(ring.focused, selector).toBe(true);
      expect(ring.style, selector).not.toBe('none');
      expect(parseFloat(ring.width), selector).toBeGreaterThanOrEqual(2);
      expect(contrast(rgb(ring.color), bg), selector).toBeGreaterThanOrEqual(3);
    }
    await close();
  }, 120_000);

  it("every chart's text has 4.5:1 contrast against what is drawn behind it (heat-map cells included)", async () => {
    const { page, close } = await open(1280);
    await page.goto('about:blank');
    // the fixture's charts, asked of an app in this process: its mock judge's table of two models has no interval
    const fixture = await buildFixture();
    const app = createApp({ store: fixture.store, bootstrapRounds: 20 });
    const charts = [
      '/charts/ratings.svg?judge=gpt-4',
      '/charts/ratings.svg?judge=mock/longer',
      '/charts/matrix.svg?judge=gpt-4',
      '/charts/matrix.svg?judge=human',
      '/charts/judges.svg',
      '/charts/model.svg?judge=gpt-4&model=gpt-4',
    ].flatMap((c) => [c, `${c}&size=narrow`.replace('.svg&', '.svg?')]);
    for (const c of charts) {
      const svg = await (await app.request(c)).text();
      expect(svg, c).toMatch(/^<svg/);
      // each text's colour, and the colour most of its box has once the texts are taken away
      const texts = await page.evaluate(async (source) => {
        const host = document.createElement('div');
        host.innerHTML = source;
        document.body.replaceChildren(host);
        const root = host.querySelector('svg')!;
        const origin = root.getBoundingClientRect();
        const bare = source.replace(/<text[\s\S]*?<\/text>/g, '');
        const img = new Image();
        img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(bare)}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        [canvas.width, canvas.height] = [root.width.baseVal.value, root.height.baseVal.value];
        const g = canvas.getContext('2d')!;
        g.fillStyle = '#fff'; // the figure's background
        g.fillRect(0, 0, canvas.width, canvas.height);
        g.drawImage(img, 0, 0);
        return Array.from(root.querySelectorAll('text'))
          .filter((t) => t.textContent?.trim())
          .map((t) => {
            const b = t.getBoundingClientRect();
            const [x, y] = [Math.max(0, b.left - origin.left), Math.max(0, b.top - origin.top)];
            const [w, h] = [
              Math.max(1, Math.min(b.width, canvas.width - x)),
              Math.max(1, Math.min(b.height, canvas.height - y)),
            ];
            const px = g.getImageData(x, y, w, h).data;
            const count = new Map<string, number>();
            for (let k = 0; k < px.length; k += 4) {
              const key = `${px[k]},${px[k + 1]},${px[k + 2]}`;
              count.set(key, (count.get(key) ?? 0) + 1);
            }
            const bg = [...count].sort((p, q) => q[1] - p[1])[0]![0];
            return { text: t.textContent!, fill: getComputedStyle(t).fill, bg: `rgb(${bg})` };
          });
      }, svg);
      expect(texts.length, c).toBeGreaterThan(0);
      for (const t of texts) {
        const r = contrast(rgb(t.fill), rgb(t.bg));
        expect(r, `${c}: "${t.text}" ${t.fill} on ${t.bg}`).toBeGreaterThanOrEqual(4.5);
      }
    }
    await fixture.store.close();
    await close();
  }, 120_000);

  it("the README's picture is made by scripts/readme-picture.ts: the home page at 1,280 x 800", async () => {
    const out = join(SHOTS, 'readme-picture.png');
    // the script's function in this process (a node and tsx start cost 3 s of CPU): its own server and Chromium
    await readmePicture((await npmStartDatabase()).db, out);
    // a PNG's IHDR: width and height at bytes 16 and 20
    const size = (f: string) => {
      const b = readFileSync(f);
      return [b.readUInt32BE(16), b.readUInt32BE(20)];
    };
    expect(size(out)).toEqual([1280, 800]);
    expect(size(join(REPO_ROOT, 'docs/leaderboard.png'))).toEqual([1280, 800]);
  }, 200_000);
});
