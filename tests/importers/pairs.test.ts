// LLMBar pair sets: `arena import pairs`, `arena accuracy` against tests/reference/llmbar_accuracy.py, located
// errors on bad files, a judge run on a set with two schemes, and labelled sets kept out of tournaments.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccuracyRow } from '../../src/core/stats/pair-accuracy.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { judgeText, startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { arenaJson, arenaOk, OWN_QA, runArena, tmpDir } from '../support/cli.ts';

const PYTHON = '/usr/bin/python3';
const REF = fileURLToPath(new URL('../reference/llmbar_accuracy.py', import.meta.url));
const SETS = process.env.JUDGE_SETS_DIR;
const LLMBAR = SETS ? join(SETS, 'llmbar') : '';
const numpy = spawnSync(PYTHON, ['-c', 'import numpy'], { encoding: 'utf8' });
const skipReason = !SETS
  ? "JUDGE_SETS_DIR is not set: set it to ../shared/judge_sets (LLMBar's labelled pairs)"
  : numpy.status !== 0
    ? `${PYTHON} cannot import numpy`
    : undefined;
if (skipReason) console.warn(`[pairs] skipped: ${skipReason}`);

const natural = (
  SETS ? JSON.parse(readFileSync(join(LLMBAR, 'Natural', 'dataset.json'), 'utf8')) : []
) as Record<string, unknown>[];
const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
const dir = tmpDir('arena-pairs-');
const db = join(dir, 'pairs.db');

interface Ref {
  set: string;
  judge: string;
  total: number;
  correctAB: number;
  correctBA: number;
  correctBoth: number;
  agreeOrders: number;
  errors: number;
  kappaAB: number;
  kappaBA: number;
  kappaOrders: number;
  llmbarKappaAB: number;
  llmbarKappaOrders: number;
  accuracyLo: number;
  accuracyHi: number;
  kappaABLo: number;
  kappaABHi: number;
}

/** A family of sets (Adversarial/*) for one judge, as the reference computes it. */
interface RefFamily {
  set: string;
  judge: string;
  family: true;
  sets: number;
  total: number;
  accuracy: number;
  pooledAccuracy: number;
  accuracyLo: number;
  accuracyHi: number;
}

describe.skipIf(!!skipReason)('LLMBar labelled pairs', () => {
  let rows: AccuracyRow[];
  let ref: Ref[];
  let families: RefFamily[];
  beforeAll(async () => {
    const out = await arenaOk(['import', 'pairs', LLMBAR, '--db', db]);
    expect(out).toContain('5 set(s), 419 items, 419 gold labels, 3352 games');
    rows = await arenaJson<AccuracyRow[]>(['accuracy', '--db', db]);
    const r = spawnSync(PYTHON, [REF, LLMBAR], { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`llmbar_accuracy.py failed: ${r.stderr}`);
    const all = JSON.parse(r.stdout) as (Ref | RefFamily)[];
    ref = all.filter((x): x is Ref => !('family' in x));
    families = all.filter((x): x is RefFamily => 'family' in x);
  }, 180_000);

  it('one row per set and judge; counts and kappas equal the Python reference computed from the files', () => {
    expect(ref).toHaveLength(20);
    expect(rows).toHaveLength(20);
    for (const e of ref) {
      const row = rows.find((x) => x.set === e.set && x.judge === e.judge)!;
      expect(row, `${e.set} ${e.judge}`).toBeDefined();
      expect({
        total: row.total,
        correctAB: row.correctAB,
        correctBA: row.correctBA,
        correctBoth: row.correctBoth,
        agreeOrders: row.agreeOrders,
        errors: row.errors,
      }).toEqual({
        total: e.total,
        correctAB: e.correctAB,
        correctBA: e.correctBA,
        correctBoth: e.correctBoth,
        agreeOrders: e.agreeOrders,
        errors: e.errors,
      });
      expect(row.missing).toBe(0);
      expect(row.kappaAB).toBeCloseTo(e.kappaAB, 12);
      expect(row.kappaBA).toBeCloseTo(e.kappaBA, 12);
      expect(row.kappaOrders).toBeCloseTo(e.kappaOrders, 12);
      expect(row.accuracy).toBeCloseTo((e.correctAB + e.correctBA) / 2 / e.total, 12);
      // intervals: our bootstrap and numpy's draw different samples; they agree within Monte Carlo noise
      expect(Math.abs(row.intervals.accuracy.lo - e.accuracyLo)).toBeLessThan(0.03);
      expect(Math.abs(row.intervals.accuracy.hi - e.accuracyHi)).toBeLessThan(0.03);
      expect(Math.abs(row.intervals.kappaAB.lo - e.kappaABLo)).toBeLessThan(0.05);
      expect(Math.abs(row.intervals.kappaAB.hi - e.kappaABHi)).toBeLessThan(0.05);
      expect(row.intervals.accuracy.lo).toBeLessThanOrEqual(row.accuracy!);
      expect(row.intervals.accuracy.hi).toBeGreaterThanOrEqual(row.accuracy!);
    }
    // the two unparsed LLaMA2 verdicts are error verdicts, their own kappa category
    expect(
      rows
        .filter((r) => r.errors)
        .map((r) => `${r.set} ${r.judge}`)
        .sort(),
    ).toEqual(['Adversarial/GPTInst LLaMA2/Vanilla', 'Adversarial/GPTOut LLaMA2/Vanilla']);
  });

  it('LLMBar\'s own code prints a different per-order kappa (it maps a "2" verdict to 0); ours is the textbook one', () => {
    const e = ref.find((x) => x.set === 'Natural' && x.judge === 'GPT-4/Vanilla')!;
    const row = rows.find((x) => x.set === 'Natural' && x.judge === 'GPT-4/Vanilla')!;
    expect(row.correctAB).toBe(95);
    expect(row.kappaAB).toBeCloseTo(e.kappaAB, 12);
    expect(e.llmbarKappaAB).toBeLessThan(0.3);
    expect(row.kappaAB! - e.llmbarKappaAB).toBeGreaterThan(0.5);
  });

  it("between orders, an unparsed verdict is its own category here; LLMBar's code counts it as Output (b)", () => {
    for (const e of ref) {
      const row = rows.find((x) => x.set === e.set && x.judge === e.judge)!;
      if (row.errors) expect(row.kappaOrders, `${e.set} ${e.judge}`).not.toBeCloseTo(e.llmbarKappaOrders, 3);
      else expect(row.kappaOrders, `${e.set} ${e.judge}`).toBeCloseTo(e.llmbarKappaOrders, 12);
    }
    const two = (set: string) => [
      rows.find((x) => x.set === set && x.judge === 'LLaMA2/Vanilla')!.kappaOrders!.toFixed(3),
      ref.find((x) => x.set === set && x.judge === 'LLaMA2/Vanilla')!.llmbarKappaOrders.toFixed(3),
    ];
    expect(two('Adversarial/GPTInst')).toEqual(['0.475', '0.489']);
    expect(two('Adversarial/GPTOut')).toEqual(['0.482', '0.475']);
  });

  it("the judge board (arena judges --board --json) ranks LLMBar's judges by accuracy over all 419 items", async () => {
    const board = await arenaJson<
      {
        judge: string;
        rank: number;
        accuracy: unknown;
        accuracyOverall: { value: number; lo: number; hi: number; n: number };
        source: string;
      }[]
    >(['judges', '--board', '--db', db]);
    expect(board.map((b) => b.judge)).toEqual([
      'GPT-4/Metrics_Reference',
      'GPT-4/Vanilla',
      'LLaMA2/Metrics_Reference',
      'LLaMA2/Vanilla',
    ]);
    for (const b of board) {
      const mine = ref.filter((e) => e.judge === b.judge);
      const correct = mine.reduce((n, e) => n + e.correctAB + e.correctBA, 0);
      expect(b.accuracyOverall.n).toBe(419);
      expect(b.accuracyOverall.value).toBeCloseTo(correct / 2 / 419, 12);
      expect(b.source).toBe('games');
    }
    expect(board.map((b) => b.rank)).toEqual([1, 1, 3, 3]);
  });

  it('the board\'s "Adversarial" figure is the mean of its four sets (as LLMBar\'s paper reports it), not the pooled items', async () => {
    const board = await arenaJson<
      {
        judge: string;
        accuracy: {
          set: string;
          group: boolean;
          total: number;
          sets?: number;
          accuracy: number;
          pooledAccuracy?: number;
          lo: number;
          hi: number;
        }[];
      }[]
    >(['judges', '--board', '--db', db]);
    expect(families).toHaveLength(4);
    for (const e of families) {
      const adv = board
        .find((b) => b.judge === e.judge)!
        .accuracy.find((a) => a.group && a.set === 'Adversarial')!;
      expect(adv).toMatchObject({ total: e.total, sets: 4 });
      expect(adv.accuracy).toBeCloseTo(e.accuracy, 12);
      expect(adv.pooledAccuracy).toBeCloseTo(e.pooledAccuracy, 12);
      // a stratified bootstrap (each set's items drawn on their own); numpy draws others: within Monte Carlo noise
      expect(Math.abs(adv.lo - e.accuracyLo)).toBeLessThan(0.02);
      expect(Math.abs(adv.hi - e.accuracyHi)).toBeLessThan(0.02);
    }
    // the paper's GPT-4/Metrics_Reference Adversarial figure, 82.8%; the pooled items give 84.5%
    const gpt4 = board.find((b) => b.judge === 'GPT-4/Metrics_Reference')!.accuracy.find((a) => a.group)!;
    expect(gpt4.accuracy.toFixed(3)).toBe('0.828');
    expect(gpt4.pooledAccuracy!.toFixed(3)).toBe('0.845');
  });

  it('--judge and --set pick rows; an unknown set or judge is an error naming what exists', async () => {
    const one = await arenaJson<AccuracyRow[]>([
      'accuracy',
      '--db',
      db,
      '--judge',
      'GPT-4/Vanilla',
      '--set',
      'Adversarial/Neighbor',
    ]);
    expect(one.map((r) => [r.set, r.judge, r.correctAB])).toEqual([
      ['Adversarial/Neighbor', 'GPT-4/Vanilla', 104],
    ]);
    const bad = await runArena(['accuracy', '--db', db, '--set', 'Adversarial/Neighbour']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'no labelled set named "Adversarial/Neighbour" (sets: Adversarial/GPTInst, Adversarial/GPTOut, Adversarial/Manual, Adversarial/Neighbor, Natural)',
    );
  });

  it('importing the same directory again changes nothing', async () => {
    const before = await arenaJson<AccuracyRow[]>(['accuracy', '--db', db, '--set', 'Natural']);
    await arenaOk(['import', 'pairs', LLMBAR, '--db', db]);
    const s = openSqliteStore(db);
    const n = (s.sqlite.prepare('select count(*) n from games').get() as { n: number }).n;
    const v = (s.sqlite.prepare("select count(*) n from votes where judge = 'gold'").get() as { n: number })
      .n;
    await s.close();
    expect([n, v]).toEqual([3352, 419]);
    expect(await arenaJson<AccuracyRow[]>(['accuracy', '--db', db, '--set', 'Natural'])).toEqual(before);
  });

  describe('bad input: one located error, the database unchanged', () => {
    // one item per line: item i is on line i + 2
    const write = (f: string, items: unknown[]) =>
      writeFileSync(f, `[\n${items.map((x) => JSON.stringify(x)).join(',\n')}\n]\n`);

    it('a dataset.json with a label of 3', async () => {
      const bad = join(dir, 'bad-label');
      mkdirSync(join(bad, 'Natural'), { recursive: true });
      write(
        join(bad, 'Natural', 'dataset.json'),
        natural.map((x, i) => (i === 5 ? { ...x, label: 3 } : x)),
      );
      const before = sha(db);
      const r = await runArena(['import', 'pairs', bad, '--db', db]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `arena: ${join(bad, 'Natural', 'dataset.json')}:7: field "label": item 5: expected 1 or 2 (which output is better, as a number or a string), got 3`,
      );
      expect(sha(db)).toBe(before);
    });

    it('a result.json whose item count differs from its dataset.json', async () => {
      const bad = join(dir, 'bad-count');
      const ev = join(bad, 'Natural', 'evaluators', 'GPT-4', 'Vanilla');
      mkdirSync(ev, { recursive: true });
      write(join(bad, 'Natural', 'dataset.json'), natural);
      const results = JSON.parse(
        readFileSync(join(LLMBAR, 'Natural', 'evaluators', 'GPT-4', 'Vanilla', 'result.json'), 'utf8'),
      ) as unknown[];
      write(join(ev, 'result.json'), results.slice(0, 99));
      const before = sha(db);
      const r = await runArena(['import', 'pairs', bad, '--db', db]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `arena: ${join(ev, 'result.json')}:1: 99 item(s), but ${join(bad, 'Natural', 'dataset.json')} has 100: a result.json must judge every item of its dataset, in order`,
      );
      expect(sha(db)).toBe(before);
    });
  });

  describe('a judge of ours on a labelled set (OpenAI-compatible test server), and a tournament beside it', () => {
    let srv: OpenAIServer;
    // the fake judge prefers the longer output: "Output (a)/(b)" for LLMBar's prompt, [[A]]/[[B]] otherwise;
    // an LLMBar prompt with two outputs of equal length gets a reply without a verdict
    const reply = ({ system, user }: { system: string; user: string }) => {
      const m = /# Output \(a\):\n([\s\S]*)\n\n# Output \(b\):\n([\s\S]*)\n\n# Which is better/.exec(user);
      if (!m) return judgeText(system, user, 'longer');
      return m[1]!.length === m[2]!.length
        ? 'Both are fine.'
        : m[1]!.length > m[2]!.length
          ? 'Output (a)'
          : 'Output (b)';
    };
    beforeAll(async () => {
      srv = await startOpenAIServer({ verdict: reply });
    });
    afterAll(async () => srv?.close());
    const env = { OPENAI_API_KEY: 'test' };

    it("arena run --set Natural with LLMBar's prompt and with ours; accuracy read the same way, equal to the counts from dataset.json", async () => {
      const run = (prompts: string) =>
        arenaOk(
          [
            'run',
            '--db',
            db,
            '--judge',
            'openai/judge',
            '--base-url',
            srv.url,
            '--set',
            'Natural',
            '--prompts',
            prompts,
            '--concurrency',
            '16',
            '--retries',
            '0',
          ],
          { env },
        );
      await run('llmbar');
      await run('arena');
      expect(srv.completions()).toBe(400);
      // independent expectation: which output is longer, against the label, straight from the file
      const longerIsGold = natural.filter(
        (x) =>
          ((x.output_1 as string).length > (x.output_2 as string).length ? 1 : 2) === Number(x.label) &&
          (x.output_1 as string).length !== (x.output_2 as string).length,
      ).length;
      const equal = natural.filter(
        (x) => (x.output_1 as string).length === (x.output_2 as string).length,
      ).length;
      const rows = await arenaJson<AccuracyRow[]>(['accuracy', '--db', db, '--judge', 'openai/judge']);
      expect(rows.map((r) => [r.set, r.prompt])).toEqual([
        ['Natural', 'arena-pair-v1'],
        ['Natural', 'llmbar-vanilla'],
      ]);
      for (const r of rows) {
        expect(r.total).toBe(100);
        expect([r.correctAB, r.correctBA, r.correctBoth]).toEqual([longerIsGold, longerIsGold, longerIsGold]);
        expect(r.agreeOrders).toBe(100); // a length rule does not depend on the order
      }
      expect(rows[1]!.errors).toBe(2 * equal);
      // the rendered LLMBar prompt is LLMBar's text with the item filled in
      const s = openSqliteStore(db);
      const g = s.sqlite
        .prepare(
          "select user_prompt u, reply, verdict, parser from games where judge = 'openai/judge' and prompt_name = 'llmbar-vanilla' and \"order\" = 'BA' limit 1",
        )
        .get() as { u: string; reply: string; verdict: string; parser: string };
      await s.close();
      expect(g.u).toContain(
        '# Which is better, Output (a) or Output (b)? Your response should be either "Output (a)" or "Output (b)":',
      );
      expect(g.parser).toBe('llmbar@1');
      expect(g.verdict).toBe(
        g.reply === 'Output (a)' ? 'model_2' : g.reply === 'Output (b)' ? 'model_1' : 'error',
      );
      // a second identical run makes no call
      await run('llmbar');
      expect(srv.completions()).toBe(400);
    }, 300_000);

    it('a labelled set is not a tournament: its items and judges stay out of standings, judges, models and the site', async () => {
      await arenaOk(
        [
          'run',
          '--db',
          db,
          '--judge',
          'openai/judge',
          '--base-url',
          srv.url,
          '--models',
          'arena-sage,arena-echo',
          ...OWN_QA,
          '--turns',
          '1',
          '--concurrency',
          '16',
        ],
        { env },
      );
      const questions = readFileSync('questions/arena.jsonl', 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length;
      const st = await arenaJson<{ model: string; win: number; loss: number; tie: number; error: number }[]>([
        'standings',
        '--db',
        db,
        '--judge',
        'openai/judge',
      ]);
      expect(st.map((r) => r.model).sort()).toEqual(['arena-echo', 'arena-sage']);
      // one match per question: the judge's 200 games on Natural add nothing
      expect(st.reduce((n, r) => n + r.win + r.loss + r.tie + r.error, 0)).toBe(2 * questions);
      // the board has the judge with all its games (sets and tournament) and the latency it stored
      const board = await arenaJson<
        {
          judge: string;
          games: number;
          secondsPer1000Games: number | null;
          accuracy: { set: string; total: number }[];
        }[]
      >(['judges', '--board', '--db', db, '--judge', 'openai/judge']);
      expect(board).toHaveLength(1);
      expect(board[0]!.games).toBe(400 + 2 * questions);
      expect(board[0]!.secondsPer1000Games).toBeGreaterThan(0);
      expect(board[0]!.accuracy.map((a) => [a.set, a.total])).toEqual([['Natural', 100]]);
      const judges = await arenaJson<{ judge: string; games: number }[]>(['judges', '--db', db]);
      expect(judges.map((j) => j.judge)).toEqual(['openai/judge']);
      expect(judges[0]!.games).toBe(2 * questions);
      const gpt = await runArena(['standings', '--db', db, '--judge', 'GPT-4/Vanilla', '--json']);
      expect(JSON.parse(gpt.stdout || '[]')).toEqual([]);
      const store = openSqliteStore(db);
      try {
        expect(await store.catalog.models()).not.toContain('output_1');
        expect((await store.catalog.questions()).length).toBe(questions);
        const app = createApp({ store, bootstrapRounds: 50 });
        const lb = (await (await app.request('/api/leaderboard?judge=openai/judge')).json()) as {
          model: string;
        }[];
        expect(lb.map((r) => r.model).sort()).toEqual(['arena-echo', 'arena-sage']);
        expect((await app.request('/api/leaderboard?judge=GPT-4%2FVanilla')).status).toBe(404);
        const site = (await (await app.request('/api/judges')).json()) as { judge: string }[];
        expect(site.map((j) => j.judge)).toEqual(['openai/judge']);
        const html = await (await app.request('/')).text();
        expect(html).not.toContain('output_1');
      } finally {
        await store.close();
      }
    }, 300_000);
  });
});
