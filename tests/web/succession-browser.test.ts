// A refresh whose judge is retired mid-history (issue #37): the study's Llama-2-70B (replayed by a test server)
// succeeds GPT-4, plays the bridge first and the board switches; a contrarian (A and B swapped) succeeding it shows
// reversed rankings, so the board stays and both are kept. Chromium reads the boards and the succession page.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, tmpDir } from '../support/cli.ts';
import { CHROMIUM, HAVE_CHROMIUM, SHOTS, siteInChromium } from '../support/chromium.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';
import { JUDGE_LLAMA2_DIR, MTBENCH_DIR, noMtbenchOrJudgeLlama2, skipWhy } from '../support/materials.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { studyReplies } from '../support/study-six.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import type { SuccessionRecord } from '../../src/core/records.ts';

const SKIP = skipWhy('succession-browser', noMtbenchOrJudgeLlama2());
const LLAMA = 'openai/llama-2-70b-instruct-v2';
const CONTRARIAN = 'openai/contrarian';

describe.skipIf(!!SKIP)('a refresh whose judge is retired mid-history', { timeout: 600_000 }, () => {
  const dir = tmpDir('arena-succession-site-');
  const db = join(dir, 'arena.db');
  const servers: OpenAIServer[] = [];
  const records: SuccessionRecord[] = [];
  const lines: string[] = [];

  const config = (name: string, judge: object) => {
    const mt = (p: string) => join(MTBENCH_DIR!, p);
    const file = join(dir, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        db,
        questions: [mt('question.jsonl')],
        references: [mt('reference_answer/gpt-4.jsonl')],
        prompts: [mt('judge_prompts.jsonl')],
        answers: [mt('model_answer')],
        promptSet: 'mt-bench',
        judges: [{ concurrency: 16, price: { input: 0, output: 0 }, ...judge }],
        succession: { minKendall: 0.6, maxCalls: 1200 },
      }),
    );
    return file;
  };
  const refresh = async (file: string) => {
    const s = await arenaJson<{
      succession: SuccessionRecord[];
      line: string;
      runs: { mode: string; played: number }[];
    }>(['refresh', '--config', file], { env: { OPENAI_API_KEY: 'sk-test' } });
    records.push(...s.succession);
    lines.push(s.line);
    return s;
  };

  beforeAll(async () => {
    const replies = studyReplies(JUDGE_LLAMA2_DIR!);
    const swap = (t: string) =>
      t.replace(/\[\[(A|B)\]\]/g, (_, x: string) => (x === 'A' ? '[[B]]' : '[[A]]'));
    servers.push(await startOpenAIServer({ verdict: ({ user }) => replies.get(user) ?? 'none' }));
    servers.push(await startOpenAIServer({ verdict: ({ user }) => swap(replies.get(user) ?? 'none') }));
    await mtbenchReleaseDb(db);
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it('the successor plays the bridge first, then its plan; tau above the threshold switches the board', async () => {
    const s = await refresh(config('llama', { id: LLAMA, baseURL: servers[0]!.url, succeeds: 'gpt-4' }));
    // the bridge's rounds (one run each) before the plan, which plays only what the bridge did not
    const modes = s.runs.map((r) => r.mode);
    expect(modes.lastIndexOf('succession')).toBeLessThan(modes.indexOf('pairwise-all'));
    const played = (m: string) => s.runs.filter((r) => r.mode === m).reduce((n, r) => n + r.played, 0);
    expect([played('succession'), played('pairwise-all')]).toEqual([1200, 3600]);
    const r = records[0]!;
    expect([r.from, r.to, r.switched, r.paid]).toEqual(['gpt-4', LLAMA, true, 1200]);
    expect(r.report.bridge.matches).toBe(600);
    expect(r.report.figures.kendall.value).toBeGreaterThanOrEqual(0.6);
    expect(r.why).toMatch(/is at least 0\.6: the board switches from gpt-4 to/);
  });

  it('a successor whose rankings differ beyond the threshold: said, and both boards kept', async () => {
    await refresh(config('contrarian', { id: CONTRARIAN, baseURL: servers[1]!.url, succeeds: LLAMA }));
    const r = records[1]!;
    expect([r.from, r.to, r.switched]).toEqual([LLAMA, CONTRARIAN, false]);
    expect(r.report.figures.kendall.value).toBeLessThan(0);
    expect(r.why).toMatch(/is below 0\.6: the rankings differ beyond the threshold/);
  });

  describe.skipIf(!HAVE_CHROMIUM)(`in Chromium (${CHROMIUM})`, () => {
    // the rounds the refreshes built their stored reports with: the site reads those rather than computing them again
    const site = siteInChromium(async () => openSqliteStore(db), {
      bootstrapRounds: 1000,
      timeoutMs: 300_000,
    });

    it('the boards say which judge produced them and since when; the old one stays, marked retired', async () => {
      const page = await site.page({ width: 1280 });
      // the home page shows the board the succession made current
      await page.goto(`${site.server.url}/`);
      expect(await page.locator('main table caption').first().textContent()).toMatch(
        new RegExp(`^Judge ${LLAMA.replace(/[/.]/g, '\\$&')} ·`),
      );
      await page.goto(`${site.server.url}/leaderboard`);
      const heads = await page.locator('section.board h2[id^="judge-"]').allTextContents();
      expect(heads[0]).toBe(`Judge: ${LLAMA}`);
      expect(heads.at(-1)).toMatch(/^Judge: gpt-4\s*retired$/);
      const story = (judge: string) =>
        page.locator(`section.board:has(h2:text-is("Judge: ${judge}")) p.story`).textContent();
      expect(await story(LLAMA)).toMatch(
        /^The default board: produced by .* since 20\d\d-\d\d-\d\d \d\d:\d\d UTC, when it succeeded gpt-4\./,
      );
      expect(await story('gpt-4')).toMatch(
        /^Retired on 20\d\d-\d\d-\d\d \d\d:\d\d UTC: succeeded by openai\/llama-2-70b-instruct-v2\./,
      );
      expect(await story(CONTRARIAN)).toMatch(/not the default: .* is below 0\.6/);
      // both old and new boards have their rows
      for (const j of ['gpt-4', LLAMA, CONTRARIAN])
        expect(await page.locator(`section.board:has(h2:text-is("Judge: ${j}")) tbody tr`).count()).toBe(6);
      await page.screenshot({ path: join(SHOTS, 'succession-boards.png'), fullPage: true });
    });

    it('the succession page shows each bridge report, the figures the refresh recorded', async () => {
      const page = await site.page({ width: 390 });
      await page.goto(`${site.server.url}/leaderboard`);
      await page.locator('section.board p.story a').first().click();
      await page.waitForURL(/\/succession$/);
      const sections = page.locator('section.succession');
      expect(await sections.count()).toBe(2);
      // newest first: the contrarian's kept-both, then the switch from GPT-4
      const first = sections.nth(1);
      expect(await first.getAttribute('data-from')).toBe('gpt-4');
      const text = (await first.textContent())!;
      expect(text).toContain('Switched');
      const f = records[0]!.report.figures;
      const cell = (t: string) =>
        first.locator(`table.bridge-figures tr:has(th:text-is("${t}")) td`).first().textContent();
      expect(await cell('agreement (with ties)')).toBe(
        `${(100 * f.agreement.value!).toFixed(1)}% [${(100 * f.agreement.lo!).toFixed(1)}%, ${(100 * f.agreement.hi!).toFixed(1)}%]`,
      );
      expect(await cell("Cohen's kappa (with ties)")).toBe(
        `${f.kappa.value!.toFixed(3)} [${f.kappa.lo!.toFixed(3)}, ${f.kappa.hi!.toFixed(3)}]`,
      );
      expect(await first.locator('table.bridge-ratings tbody tr').count()).toBe(6);
      expect(await sections.nth(0).textContent()).toContain('Not switched: both boards kept');
      await page.screenshot({ path: join(SHOTS, 'succession-page-phone.png'), fullPage: true });
    });
  });
});
