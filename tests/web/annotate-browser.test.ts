// An invited annotator in real Chromium: logs in with the invite link, votes on ten matches by keyboard alone, and
// `arena agreement --judges gpt-4,annotators` counts those votes against GPT-4's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNode, type NodeServer } from '../../src/entry/node.ts';
import { importFiles, mtbenchSources } from '../../src/importers/import.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { CHROMIUM, HAVE_CHROMIUM, launchChromium } from '../support/chromium.ts';
import { arenaOk, tmpDir } from '../support/cli.ts';
import { voteWithKeyboard } from './annotate-flow.ts';
import { MTBENCH_DIR } from './fixture.ts';

if (!HAVE_CHROMIUM) console.warn(`[annotate browser test] skipped: no Chromium at ${CHROMIUM}`);

/** GPT-4's verdicts in the HF gpt4_pair file: how many there are per (question, turn, model pair). */
function gpt4Verdicts(): Map<string, number> {
  const lines = readFileSync(join(MTBENCH_DIR, 'human_judgments', 'mt_bench_gpt4_pair.csv'), 'utf8')
    .trim()
    .split('\n');
  const head = lines[0]!.split(',');
  const col = (name: string) => head.indexOf(name);
  const out = new Map<string, number>();
  for (const l of lines.slice(1)) {
    const c = l.split(',');
    const [a, b] = [c[col('model_a')]!, c[col('model_b')]!].sort();
    const k = `${c[col('question_id')]}|${c[col('turn')]}|${a}|${b}`;
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

describe.skipIf(!HAVE_CHROMIUM)('/annotate in Chromium over the Node server', () => {
  let store: SqliteStore;
  let server: NodeServer;
  let browser: Browser;
  let file: string;
  beforeAll(async () => {
    file = join(tmpDir('arena-annotate-browser-'), 'arena.db');
    store = openSqliteStore(file);
    await importFiles(store, mtbenchSources(MTBENCH_DIR));
    server = await serveNode(store, {
      port: 0,
      bootstrapRounds: 10,
      annotate: { secret: 'browser-test-secret-0123456789-abcdefXYZ', queue: 'review' },
    });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await store?.close();
  });

  it('an invited annotator votes on ten matches with the keyboard; arena agreement counts them against gpt-4', async () => {
    const added = await arenaOk(['annotators', 'add', 'alice', '--db', file, '--site-url', server.url]);
    const invite = /(http:\/\/\S+\/annotate\/login\?token=\S+)/.exec(added)![1]!;
    const voted = await voteWithKeyboard(browser, invite, 10);
    expect(voted.problems).toEqual([]);
    expect(voted.progress).toContain('10 voted · 0 skipped');
    const votes = await store.votes.list('annotators');
    expect(votes).toHaveLength(10);
    // the choices as pressed, mapped back through the order each match was shown in
    const shown = (await store.annotators.answered()).map((n) => n.choice);
    expect(shown).toEqual(voted.keys.map((k) => ({ 1: 'A', 2: 'B', 3: 'tie', 4: 'bothbad' })[k]));
    const gpt4 = gpt4Verdicts();
    const expected = votes.reduce(
      (n, v) => n + (gpt4.get(`${v.questionId}|${v.turn}|${[v.model1, v.model2].sort().join('|')}`) ?? 0),
      0,
    );
    expect(expected).toBe(10); // the review queue hands out matches a judge has a verdict on first
    const rows = JSON.parse(
      await arenaOk(['agreement', '--db', file, '--judges', 'gpt-4,annotators', '--json']),
    ) as { setup: string; total: number }[];
    expect(rows.filter((r) => r.setup === 'with-tie').reduce((n, r) => n + r.total, 0)).toBe(expected);
  });
});
