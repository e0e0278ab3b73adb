// /variants and its /api tables on the release and the study's judgments, against Python on the raw files:
// Bradley–Terry both conventions (compute_mle_elo.py), Rao–Kupper and the position term (bt_variants.py), power
// (power.py); the length effect as `arena length` prints it (checked in tests/core/stats/length-model.test.ts).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { arenaJson, tmpDir } from '../support/cli.ts';
import {
  JUDGE_LLAMA2_DIR,
  MTBENCH_DIR,
  noMtbenchOrJudgeLlama2,
  readCsv,
  skipWhy,
} from '../support/materials.ts';
import { releaseJudgmentsDb } from '../support/mtbench-release.ts';
import { python, pythonSkip, referenceOnce } from '../support/python.ts';

const SKIP = skipWhy('variants-page', noMtbenchOrJudgeLlama2(), pythonSkip);
const ROUNDS = 50;
const JUDGE = 'llama-2-70b-instruct-v2';
const FILE = JUDGE_LLAMA2_DIR
  ? join(JUDGE_LLAMA2_DIR, 'model_judgment', 'L40-Llama-2-70b-instruct-v2.jsonl.gz')
  : '';
const GPT4_CSV = MTBENCH_DIR ? join(MTBENCH_DIR, 'human_judgments', 'mt_bench_gpt4_pair.csv') : '';

type Row = {
  model: string;
  bt: number;
  btFastchat: number;
  raoKupper: number;
  withPosition: number | null;
};
type Term = {
  term: string;
  estimate: number | null;
  se: number | null;
  seIndependent: number | null;
  lo: number | null;
  hi: number | null;
  observations: number | null;
  questions: number | null;
  note: string;
};
type Fit = { models: string[]; ratings: number[] } & Record<string, number>;

/** A reference script run on the raw files (arguments, not stdin), its stdout parsed; once per run and arguments. */
const reference = <T>(script: string, ...args: string[]): T => referenceOnce<T>(script, args);

describe.skipIf(!!SKIP)('rating variants and power on the site', () => {
  const db = join(tmpDir('arena-variants-'), 'site.db');
  let store: SqliteStore;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    // the release with FILE imported under JUDGE, once per run
    await releaseJudgmentsDb(db, FILE, JUDGE);
    store = openSqliteStore(db);
    app = createApp({ store, bootstrapRounds: ROUNDS });
  }, 300_000);
  afterAll(async () => {
    await store?.close();
  });
  const json = async <T>(path: string) => {
    const r = await app.request(path);
    expect(r.status, path).toBe(200);
    return (await r.json()) as T;
  };
  const ratingOf = (fit: Fit, model: string) => fit.ratings[fit.models.indexOf(model)]!;

  it('GPT-4: BT with inconsistent matches dropped = compute_mle_elo, Rao–Kupper = bt_variants.py; the page shows them', async () => {
    const battles = readCsv(GPT4_CSV)
      .filter((r) => r.judge === 'gpt4_pair')
      .map((r) => [r.model_a!, r.model_b!, r.winner!]);
    const mle = python<Record<string, number>>('compute_mle_elo.py', battles, 120_000);
    const want = reference<{ raoKupper: Fit }>('bt_variants.py', FILE, GPT4_CSV).raoKupper;
    const rows = await json<Row[]>('/api/variants?judge=gpt-4');
    expect(rows.map((r) => r.model).sort()).toEqual(Object.keys(mle).sort());
    for (const r of rows) {
      expect(Math.abs(r.btFastchat - mle[r.model]!), r.model).toBeLessThan(1e-4);
      expect(Math.abs(r.raoKupper - ratingOf(want, r.model)), r.model).toBeLessThan(0.01);
      // GPT-4's outcomes come from the gpt4_pair split: no games, no order, no position term
      expect(r.withPosition).toBeNull();
    }
    const gpt4 = rows.find((r) => r.model === 'gpt-4')!;
    // the figures: ours counts a "tie (inconsistent)" as a tie, FastChat's drops it
    expect([gpt4.bt.toFixed(1), gpt4.btFastchat.toFixed(1)]).toEqual(['1314.5', '1407.5']);
    const terms = await json<Term[]>('/api/variant-terms?judge=gpt-4');
    const theta = terms.find((t) => t.term === 'rao-kupper θ')!;
    expect(theta.estimate!).toBeCloseTo(want.theta!, 4);
    expect(theta.observations).toBe(2400);
    const position = terms.find((t) => t.term === 'position')!;
    expect(position.estimate).toBeNull();
    expect(position.note).toContain('gpt-4 has no games');
    const html = await (await app.request('/variants?judge=gpt-4')).text();
    expect(html).toContain('<td>1314</td><td>1407</td>');
    expect(html).toContain(`<td>${want.theta!.toFixed(3)}</td>`);
    expect(html).toMatch(/leaves out the 380 of 2,400 matches/);
  }, 120_000);

  it('the study judge: the position term and its question-clustered SE = bt_variants.py', async () => {
    const want = reference<{ position: Fit }>('bt_variants.py', FILE, GPT4_CSV).position;
    const rows = await json<Row[]>(`/api/variants?judge=${JUDGE}`);
    for (const r of rows)
      expect(Math.abs(r.withPosition! - ratingOf(want, r.model)), r.model).toBeLessThan(0.01);
    const p = (await json<Term[]>(`/api/variant-terms?judge=${JUDGE}`)).find((t) => t.term === 'position')!;
    expect(p.estimate!).toBeCloseTo(want.position!, 4);
    expect(p.se!).toBeCloseTo(want.se!, 4);
    expect(p.seIndependent!).toBeCloseTo(want.seIndependent!, 4);
    expect(p.questions).toBe(want.questions);
    expect(p.lo!).toBeCloseTo(want.position! - 1.959963984540054 * want.se!, 3);
    const html = await (await app.request(`/variants?judge=${JUDGE}`)).text();
    expect(html).toContain(
      `<th scope="row">position</th><td>${want.position!.toFixed(1)}</td><td>${want.se!.toFixed(1)}</td>`,
    );
  }, 120_000);

  it('the length effect with its clustered SE and support, as `arena length` (GPT-4: 0.180 clustered, 0.127 if independent)', async () => {
    for (const judge of ['gpt-4', JUDGE, 'human']) {
      const cli = await arenaJson<{
        lengthEffect: {
          coefficient: number;
          se: number;
          seIndependent: number;
          lo: number;
          hi: number;
          support: { matches: number; decisive: number; questions: number };
        };
      }>(['length', '--judge', judge, '--rounds', '200', '--json', '--db', db]);
      const e = cli.lengthEffect;
      const t = (await json<Term[]>(`/api/variant-terms?judge=${judge}`)).find((x) => x.term === 'length')!;
      expect(t, judge).toMatchObject({
        estimate: e.coefficient,
        se: e.se,
        seIndependent: e.seIndependent,
        observations: e.support.decisive,
        questions: e.support.questions,
      });
      // the interval is the clustered SE's (no bootstrap on the write path); it lies near the question bootstrap's
      expect(t.lo!).toBeCloseTo(e.coefficient - 1.959963984540054 * e.se, 8);
      expect(t.hi!).toBeCloseTo(e.coefficient + 1.959963984540054 * e.se, 8);
      expect(Math.abs(t.lo! - e.lo)).toBeLessThan(0.1);
      if (judge === 'gpt-4') {
        expect(t.se!).toBeCloseTo(0.18, 3);
        expect(t.seIndependent!).toBeCloseTo(0.127, 3);
        // GPT-4's 2,400 matches, 600 of them ties or inconsistent: 1,800 decisive on all 80 questions
        expect(e.support).toEqual({ matches: 2400, decisive: 1800, questions: 80 });
      }
    }
  }, 180_000);

  it('the power table = power.py for both judges, on the page and in /api/power', async () => {
    type P = Record<string, number | string | boolean | null>;
    const want = reference<Record<'gpt-4' | 'llama', P[]>>(
      'power.py',
      FILE,
      GPT4_CSV,
      'observed',
      '0.05',
      '0.8',
    );
    for (const [judge, ref] of [
      ['gpt-4', want['gpt-4']],
      [JUDGE, want.llama],
    ] as const) {
      const got = await json<P[]>(`/api/power?judge=${judge}`);
      expect(got.map((r) => [r.model1, r.model2])).toEqual(ref.map((r) => [r.model1, r.model2]));
      got.forEach((r, k) => {
        for (const f of ['questions', 'matches', 'separated', 'questionsNeeded', 'matchesNeeded'])
          expect(r[f], `${judge} ${String(r.model1)} ${f}`).toEqual(ref[k]![f]);
        for (const f of ['winRate', 'sdPerQuestion', 'se', 'gap'])
          expect(r[f] as number, `${judge} ${String(r.model1)} ${f}`).toBeCloseTo(ref[k]![f] as number, 12);
      });
      const html = await (await app.request(`/variants?judge=${judge}`)).text();
      const first = ref[0]!;
      expect(html).toContain(
        `<tr><th scope="row">${String(first.model1)}</th><td class="l">${String(first.model2)}</td>`,
      );
    }
    // the CSV has the same columns
    const csv = await (await app.request('/api/power.csv?judge=gpt-4')).text();
    expect(csv.split(/\r?\n/)[0]).toBe(
      'model1,model2,questions,matches,winRate,sdPerQuestion,se,separated,gap,questionsNeeded,matchesNeeded',
    );
  }, 120_000);

  it('a judge the database does not know is a 404; an unknown /api parameter a 400; the page ignores one', async () => {
    expect((await app.request('/variants?judge=nope')).status).toBe(404);
    expect((await app.request('/api/power?judge=nope')).status).toBe(404);
    expect((await app.request('/api/variants?judge=gpt-4&x=1')).status).toBe(400);
    const plain = await (await app.request('/variants?judge=gpt-4')).text();
    expect(await (await app.request('/variants?judge=gpt-4&utm_source=x')).text()).toBe(plain);
  }, 60_000);
});
