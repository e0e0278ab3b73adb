// The home page's GPT-4 vs Llama-2-70B block in real Chromium: one click away, boards side by side on a desktop,
// stacked on a phone, no request leaving the site; over the shared `npm start` database (tests/support/npm-start.ts)
// served with `arena start`'s bootstrap rounds, so the pages read its stored reports. Screenshots: screenshots/.
import { join } from 'node:path';
import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { STUDY_JUDGE } from '../../src/reports/judge-quality/duel.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { CHROMIUM, HAVE_CHROMIUM, SHOTS, siteInChromium } from '../support/chromium.ts';
import { npmStartDatabase } from '../support/npm-start.ts';

const MT = process.env.MTBENCH_DIR;
const JL = process.env.JUDGE_LLAMA2_DIR;
const SKIP = !HAVE_CHROMIUM
  ? `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`
  : !MT || !JL || JL === 'none'
    ? 'MTBENCH_DIR and JUDGE_LLAMA2_DIR must be set'
    : '';
if (SKIP) console.warn(`[duel-browser] skipped: ${SKIP}`);

describe.skipIf(!!SKIP)('GPT-4 and the Llama-2-70B judge side by side, in Chromium', () => {
  const site = siteInChromium(async () => openSqliteStore((await npmStartDatabase()).db), {
    bootstrapRounds: 1000,
    timeoutMs: 420_000,
  });

  for (const [name, width] of [
    ['desktop', 1280],
    ['phone', 390],
  ] as const) {
    it(`${name}: both boards, the reading, nothing fetched from elsewhere`, async () => {
      const page = await site.page({ width });
      const requests: string[] = [];
      const onRequest = (r: Request) => requests.push(r.url());
      page.on('request', onRequest);
      await page.goto(`${site.server.url}/judges`);
      const section = page.locator('section.duel');
      await expect(
        section.getByRole('heading', { name: `gpt-4 and ${STUDY_JUDGE} side by side` }).isVisible(),
      ).resolves.toBe(true);
      await expect(section.locator('#duel-reading').textContent()).resolves.toMatch(
        /^On the 2,027 matches where both judges .* contradicts itself .* and gpt-4 in [\d.]+% \[[\d.]+, [\d.]+\]: [\d.]+ \[[\d.]+, [\d.]+\] times as often\. .* Pearson's r .* is 0\.\d+ \[0\.\d+, 0\.\d+\]\. .* on turn 2, /,
      );
      const [a, b] = [
        await section.locator('table[data-judge="gpt-4"]').boundingBox(),
        await section.locator(`table[data-judge="${STUDY_JUDGE}"]`).boundingBox(),
      ];
      expect(a && b).toBeTruthy();
      if (width >= 1000) {
        expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1); // beside
        expect(Math.abs(b!.y - a!.y)).toBeLessThan(5);
      } else expect(b!.y).toBeGreaterThan(a!.y + a!.height - 1); // below
      await expect(
        section.getByRole('row', { name: /^1 gpt-4 617 45 138 0 0\.8575$/ }).count(),
      ).resolves.toBe(1);
      await section.screenshot({ path: join(SHOTS, `duel-${name}.png`) });
      page.off('request', onRequest);
      expect(requests.filter((u) => !u.startsWith(site.server.url))).toEqual([]);
    }, 120_000);
  }
});
