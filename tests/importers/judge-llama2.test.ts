// The Judge Llama 2 study's 2,400 matches imported as recorded, and its findings by the CLI, each checked against
// tests/reference/judge_llama2.py, which reads the raw .jsonl.gz and the release's CSVs.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { releaseJudgmentsDb, releaseJudgmentsSummary } from '../support/mtbench-release.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { buildReports } from '../../src/reports/site/build.ts';
import { referenceOnce } from '../support/python.ts';
import { JUDGE_LLAMA2_DIR, MTBENCH_DIR, noMtbenchOrJudgeLlama2, skipWhy } from '../support/materials.ts';
import { sqlRows } from '../support/stored-game.ts';

const MT = MTBENCH_DIR;
const JL = JUDGE_LLAMA2_DIR;
const PYTHON = '/usr/bin/python3';
const numpy = spawnSync(PYTHON, ['-c', 'import numpy'], { encoding: 'utf8' });
const SKIP = skipWhy(
  'judge-llama2',
  noMtbenchOrJudgeLlama2(),
  numpy.status !== 0 ? `${PYTHON} cannot import numpy` : undefined,
);

const JUDGE = 'llama-2-70b-instruct-v2';
const FILE = JL ? join(JL, 'model_judgment', 'L40-Llama-2-70b-instruct-v2.jsonl.gz') : '';

interface Reference {
  parsers: {
    recorded: number;
    fastchat: number;
    last: number;
    lenient: number;
    recordedDiffersFromFastchat: number;
  };
  standings: {
    model: string;
    win: number;
    loss: number;
    tie: number;
    winRate: number;
    lossRate: number;
    winRateAdjusted: number;
  }[];
  agreement: { turn: number; setup: string; total: number; agree: number; ratio: number }[];
  quality: Record<
    'llama' | 'gpt4',
    {
      turn: number;
      errorsOneGame: number;
      errorsBothGames: number;
      consistent: number;
      inconsistent: number;
      ties: number;
    }[]
  >;
  pearson: number;
}

type Fig = {
  value: number;
  lo: number;
  hi: number;
  agree?: number;
  total?: number;
  inconsistent?: number;
  matches?: number;
};
type LikeReference = { matches: number; questions: number; figures: Record<string, Fig> };
let likeRef: LikeReference | undefined;

/** tests/reference/like_for_like.py on the raw files (4,000 rounds, seed 7), run once per file. */
function likeReference(): LikeReference {
  if (likeRef) return likeRef;
  const py = spawnSync(
    PYTHON,
    [
      join(REPO_ROOT, 'tests/reference/like_for_like.py'),
      FILE,
      join(MT!, 'human_judgments/mt_bench_human.csv'),
      join(MT!, 'human_judgments/mt_bench_gpt4_pair.csv'),
      '4000',
      '7',
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (py.status !== 0) throw new Error(`reference failed: ${py.stderr}`);
  return (likeRef = JSON.parse(py.stdout) as LikeReference);
}

describe.skipIf(!!SKIP)('the Judge Llama 2 study file, imported as recorded (issue #10)', () => {
  const dir = tmpDir('arena-jl2-');
  const db = join(dir, 'arena.db');
  let ref: Reference;
  let importOut: string;

  beforeAll(async () => {
    const r = spawnSync(
      PYTHON,
      [
        join(REPO_ROOT, 'tests/reference/judge_llama2.py'),
        FILE,
        join(MT!, 'human_judgments/mt_bench_human.csv'),
        join(MT!, 'human_judgments/mt_bench_gpt4_pair.csv'),
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (r.status !== 0) throw new Error(`reference failed: ${r.stderr}`);
    ref = JSON.parse(r.stdout) as Reference;
    // the release with FILE imported under JUDGE, once per run
    await releaseJudgmentsDb(db, FILE, JUDGE);
    importOut = await releaseJudgmentsSummary(FILE, JUDGE);
  }, 300_000);

  it('imports all 4,800 games under --judge, keeps every recorded verdict and reports the ones FastChat reads otherwise in one line', () => {
    expect(importOut).toContain('4800 games');
    const note = importOut.split('\n').filter((l) => l.includes('recorded'));
    expect(note).toHaveLength(1);
    expect(note[0]).toContain(
      `${ref.parsers.recordedDiffersFromFastchat} of 4800 recorded verdict(s) differ from FastChat's reading`,
    );
    expect(note[0]).toContain(`arena reparse --judge ${JUDGE}`);
    const sqlite = new Database(db, { readonly: true });
    try {
      const rows = sqlite
        .prepare(
          "SELECT parser, count(*) AS n, sum(verdict = 'error') AS errors FROM games WHERE judge = ? GROUP BY parser ORDER BY parser",
        )
        .all(JUDGE) as { parser: string; n: number; errors: number }[];
      expect(rows.map((r) => [r.parser, r.n])).toEqual([
        ['fastchat@1', 4800 - ref.parsers.recordedDiffersFromFastchat],
        ['recorded', ref.parsers.recordedDiffersFromFastchat],
      ]);
      expect(rows.reduce((s, r) => s + r.errors, 0)).toBe(ref.parsers.recorded);
      expect(
        (
          sqlite
            .prepare("SELECT count(*) AS n FROM games WHERE judge = 'text-generation-webui-api'")
            .get() as { n: number }
        ).n,
      ).toBe(0);
    } finally {
      sqlite.close();
    }
  });

  it('reparse --dry-run reports the errors each parser leaves, and changes nothing', async () => {
    for (const parser of ['fastchat', 'last', 'lenient'] as const) {
      const r = await arenaJson<{
        games: number;
        errors: number;
        errorsByParser: Record<string, number>;
        storedParsers: Record<string, number>;
      }>(['reparse', '--judge', JUDGE, '--parser', parser, '--dry-run', '--db', db]);
      expect(r.games).toBe(4800);
      expect(r.errors).toBe(ref.parsers[parser]);
      expect(r.errorsByParser).toEqual({
        stored: ref.parsers.recorded,
        fastchat: ref.parsers.fastchat,
        last: ref.parsers.last,
        lenient: ref.parsers.lenient,
      });
      expect(r.storedParsers.recorded).toBe(ref.parsers.recordedDiffersFromFastchat);
    }
    const text = await arenaOk(['reparse', '--judge', JUDGE, '--parser', 'lenient', '--dry-run', '--db', db]);
    expect(text).toContain(`unparsable (error) verdicts each parser leaves: stored ${ref.parsers.recorded}`);
  }, 120_000);

  it("standings = FastChat's show_result on the file (errors dropped, disagreement = tie)", async () => {
    const rows = await arenaJson<Reference['standings']>([
      'standings',
      '--judge',
      JUDGE,
      '--mode',
      'pairwise-all',
      '--db',
      db,
    ]);
    expect(rows.map((r) => r.model)).toEqual(ref.standings.map((r) => r.model));
    for (const want of ref.standings) {
      const got = rows.find((r) => r.model === want.model)!;
      expect([got.win, got.loss, got.tie]).toEqual([want.win, want.loss, want.tie]);
      for (const k of ['winRate', 'lossRate', 'winRateAdjusted'] as const)
        expect(got[k]).toBeCloseTo(want[k], 12);
    }
  }, 60_000);

  it('agreement with the experts = compute_agreement after the study preparation, per turn, with and without ties', async () => {
    const rows = await arenaJson<Reference['agreement']>([
      'agreement',
      '--judges',
      `${JUDGE},human`,
      '--db',
      db,
    ]);
    expect(rows.map(({ turn, setup, total, agree }) => ({ turn, setup, total, agree }))).toEqual(
      ref.agreement.map(({ turn, setup, total, agree }) => ({ turn, setup, total, agree })),
    );
  }, 60_000);

  it('judges --report: errors, consistency and ties per judge and turn, and Pearson r of the adjusted win rates', async () => {
    const r = await arenaJson<{
      quality: (Reference['quality']['llama'][number] & { judge: string })[];
      correlation: { judge1: string; judge2: string; variant: string; models: number; r: number }[];
    }>(['judges', '--report', '--judge', `${JUDGE},gpt-4`, '--db', db]);
    const pick = (judge: string) =>
      r.quality
        .filter((q) => q.judge === judge)
        .map(({ turn, errorsOneGame, errorsBothGames, consistent, inconsistent, ties }) => ({
          turn,
          errorsOneGame,
          errorsBothGames,
          consistent,
          inconsistent,
          ties,
        }));
    expect(pick(JUDGE)).toEqual(ref.quality.llama);
    expect(pick('gpt-4')).toEqual(ref.quality.gpt4);
    const adj = r.correlation.find((c) => c.variant === 'adjusted')!;
    expect(adj.models).toBe(6);
    expect(adj.r).toBeCloseTo(ref.pearson, 12);
    // the study's reading: about twice GPT-4's inconsistency, ~90% of the errors on turn 2
    const [l0, g0] = [pick(JUDGE).find((q) => q.turn === 0)!, pick('gpt-4').find((q) => q.turn === 0)!];
    const ratio =
      l0.inconsistent /
      (l0.consistent + l0.inconsistent) /
      (g0.inconsistent / (g0.consistent + g0.inconsistent));
    expect(ratio).toBeGreaterThan(1.5);
    const l2 = pick(JUDGE).find((q) => q.turn === 2)!;
    expect((l2.errorsOneGame + l2.errorsBothGames) / (l0.errorsOneGame + l0.errorsBothGames)).toBeGreaterThan(
      0.85,
    );
  }, 60_000);

  it('judges --report like for like: both judges on the same 2,027 matches, with question-bootstrap intervals, = tests/reference/like_for_like.py', async () => {
    const want = likeReference();
    type Est = { value: number; interval: { lo: number; hi: number } };
    const r = await arenaJson<{
      likeForLike: {
        matches: number;
        questions: number;
        judges: {
          judge: string;
          inconsistency: Est & { inconsistent: number };
          agreement: (Est & { turn: number; setup: string; agree: number; total: number })[];
        }[];
        inconsistencyRatio: Est;
        r: Est & { models: number };
      }[];
    }>(['judges', '--report', '--judge', `gpt-4,${JUDGE}`, '--db', db]);
    expect(r.likeForLike).toHaveLength(1);
    const l = r.likeForLike[0]!;
    expect([l.matches, l.questions, l.r.models]).toEqual([want.matches, want.questions, 6]);
    // the point figures exactly; the intervals within a tenth of their width (two bootstraps' Monte-Carlo error is
    // about 2% of the width; a game-level bootstrap, which ignores that a question's matches are correlated, misses
    // the inconsistency intervals by 10-16% of their width)
    const same = (got: Est, w: Fig, what: string) => {
      expect(got.value, what).toBeCloseTo(w.value, 12);
      const tol = 0.1 * (w.hi - w.lo);
      expect(Math.abs(got.interval.lo - w.lo), `${what} lo ${got.interval.lo} vs ${w.lo}`).toBeLessThan(tol);
      expect(Math.abs(got.interval.hi - w.hi), `${what} hi ${got.interval.hi} vs ${w.hi}`).toBeLessThan(tol);
    };
    const [g, ll] = l.judges as [(typeof l.judges)[0], (typeof l.judges)[0]];
    expect([g.judge, ll.judge]).toEqual(['gpt-4', JUDGE]);
    same(g.inconsistency, want.figures['inc:gpt-4']!, 'gpt-4 inconsistency');
    same(ll.inconsistency, want.figures['inc:llama']!, 'llama inconsistency');
    expect([g.inconsistency.inconsistent, ll.inconsistency.inconsistent]).toEqual([
      want.figures['inc:gpt-4']!.inconsistent,
      want.figures['inc:llama']!.inconsistent,
    ]);
    same(l.inconsistencyRatio, want.figures.ratio!, 'ratio');
    same(l.r, want.figures.r!, 'r');
    for (const [j, name] of [
      [g, 'gpt-4'],
      [ll, 'llama'],
    ] as const) {
      expect(j.agreement).toHaveLength(4);
      for (const a of j.agreement) {
        const w = want.figures[`agree:${name}:${a.turn}:${a.setup}`]!;
        expect([a.agree, a.total]).toEqual([w.agree, w.total]);
        same(a, w, `${name} agreement turn ${a.turn} ${a.setup}`);
      }
    }
    // the audit's figures: GPT-4's inconsistency on the same matches 16.1%, not 15.8%; both judges on the same
    // decisive expert votes: GPT-4 87.4% / 89.0%, the Llama-2 judge 87.4% / 87.2%
    expect(g.inconsistency.value.toFixed(3)).toBe('0.161');
    const s2 = (j: typeof g) =>
      j.agreement.filter((a) => a.setup === 'without-tie').map((a) => (100 * a.value).toFixed(1));
    expect([s2(g), s2(ll)]).toEqual([
      ['87.4', '89.0'],
      ['87.4', '87.2'],
    ]);
  }, 120_000);

  it("the judges page's reading and /api/judge-duel, from the stored report: like for like first, each judge on its own matches after, every figure with its interval = like_for_like.py", async () => {
    const want = likeReference();
    // the write path stores the reports (here on a copy, so the later tests' commands do not rebuild them): only
    // those the two pages read, the duel and what the judges page shows beside it (every judge's leaderboards, the
    // judge board, agreement, consistency, bias, health); the Worker's mode reads them and computes nothing
    const site = join(dir, 'site.db');
    await new Database(db, { readonly: true }).backup(site);
    // without what the imports stored (every write builds every report)
    const sql = new Database(site);
    sql.exec('DELETE FROM reports');
    sql.close();
    const store = openSqliteStore(site);
    try {
      const JUDGES = [
        'GPT-4 beside the study judge',
        'judge board',
        'accuracy',
        'consistency, agreement, position bias',
        'benchmark health',
      ];
      const built = await buildReports(store, {
        only: (step) => step.startsWith('leaderboards of ') || JUDGES.includes(step),
      });
      // those and no other (a full build also stores style, variants, model pages, single grades, ...)
      const views = new Set((await store.reports.index()).map((r) => r.view));
      expect([...views].sort()).toEqual([
        '_state',
        'accuracy',
        'agreement',
        'annotatorVotes',
        'bias',
        'consistency',
        'duel',
        'health',
        'judgeBoard',
        'leaderboard',
        'matrix',
        'standings',
      ]);
      expect([built.computed, built.read, built.removed]).toEqual([built.reports, 0, 0]);
      const app = createApp({ store, reports: 'read' });
      const res = await app.request('/api/judge-duel');
      expect(res.status).toBe(200);
      type Row = {
        basis: string;
        figure: string;
        judge: string;
        turn: number | null;
        setup: string | null;
        value: number;
        lo: number;
        hi: number;
        count: number | null;
        total: number | null;
        questions: number;
        intervalsWithheld: string | null;
      };
      const rows = (await res.json()) as Row[];
      const pair = `${JUDGE} / gpt-4`;
      const row = (basis: string, figure: string, judge: string, turn?: number, setup?: string) =>
        rows.find(
          (r) =>
            r.basis === basis &&
            r.figure === figure &&
            r.judge === judge &&
            (turn === undefined || (r.turn === turn && r.setup === setup)),
        )!;
      const same = (got: Row, w: Fig, what: string) => {
        expect(got, what).toBeDefined();
        expect(got.value, what).toBeCloseTo(w.value, 12);
        const tol = 0.1 * (w.hi - w.lo);
        expect(Math.abs(got.lo - w.lo), `${what} lo ${got.lo} vs ${w.lo}`).toBeLessThan(tol);
        expect(Math.abs(got.hi - w.hi), `${what} hi ${got.hi} vs ${w.hi}`).toBeLessThan(tol);
        expect([got.questions, got.intervalsWithheld], what).toEqual([80, null]);
      };
      const F = want.figures;
      same(row('same matches', 'inconsistency', 'gpt-4'), F['inc:gpt-4']!, 'gpt-4 same');
      same(row('same matches', 'inconsistency', JUDGE), F['inc:llama']!, 'llama same');
      same(row('same matches', 'inconsistency ratio', pair), F.ratio!, 'ratio same');
      same(row('same matches', 'pearson r', pair), F.r!, 'r same');
      for (const [j, name] of [
        ['gpt-4', 'gpt-4'],
        [JUDGE, 'llama'],
      ] as const)
        for (const turn of [1, 2])
          for (const setup of ['with-tie', 'without-tie'])
            same(
              row('same matches', 'agreement with the experts', j, turn, setup),
              F[`agree:${name}:${turn}:${setup}`]!,
              `${name} ${turn} ${setup}`,
            );
      const og = row('own matches', 'inconsistency', 'gpt-4');
      const ol = row('own matches', 'inconsistency', JUDGE);
      same(og, F['own:inc:gpt-4']!, 'gpt-4 own');
      same(ol, F['own:inc:llama']!, 'llama own');
      expect([og.count, og.total, ol.count, ol.total]).toEqual([380, 2400, 610, 2027]);
      const ratio = row('own matches', 'inconsistency ratio', pair);
      const r = row('own matches', 'pearson r', pair);
      same(ratio, F['own:ratio']!, 'ratio own');
      same(r, F['own:r']!, 'r own');
      // the audit's intervals of the naive figures, within bootstrap noise: 1.9x [1.67, 2.17], r [0.948, 0.984]
      expect(ratio.value.toFixed(2)).toBe('1.90');
      expect(Math.abs(ratio.lo - 1.67)).toBeLessThan(0.03);
      expect(Math.abs(ratio.hi - 2.17)).toBeLessThan(0.04);
      expect(r.value.toFixed(3)).toBe('0.971');
      expect(Math.abs(r.lo - 0.948)).toBeLessThan(0.004);
      expect(Math.abs(r.hi - 0.984)).toBeLessThan(0.003);

      // the judges page's reading: like for like, with the same intervals, before any own-matches figure
      const page = await app.request('/judges');
      expect(page.status).toBe(200);
      const reading = (await page.text())
        .match(/<p class="reading" id="duel-reading">([\s\S]*?)<\/p>/)![1]!
        .replace(/&#39;/g, "'");
      const pct = (x: Row) =>
        `${(100 * x.value).toFixed(1)}% [${(100 * x.lo).toFixed(1)}, ${(100 * x.hi).toFixed(1)}]`;
      const num = (x: Row, d: number) => `${x.value.toFixed(d)} [${x.lo.toFixed(d)}, ${x.hi.toFixed(d)}]`;
      const sameRatio = row('same matches', 'inconsistency ratio', pair);
      expect(reading).toMatch(
        new RegExp(
          `^On the 2,027 matches where both judges gave a verdict in both orders \\(95% intervals from 1,000 rounds resampling the 80 questions\\), ${JUDGE} contradicts itself`,
        ),
      );
      expect(reading).toContain(
        `in ${pct(row('same matches', 'inconsistency', JUDGE))} of them and gpt-4 in ${pct(row('same matches', 'inconsistency', 'gpt-4'))}: ${num(sameRatio, 2)} times as often.`,
      );
      const s2 = (j: string, t: number) =>
        pct(row('same matches', 'agreement with the experts', j, t, 'without-tie'));
      expect(reading).toContain(
        `agrees with the experts' decisive votes on ${s2(JUDGE, 1)} of turn-1 votes (596) and ${s2(JUDGE, 2)} of turn-2 votes (437), gpt-4 on ${s2('gpt-4', 1)} and ${s2('gpt-4', 2)} of the same votes`,
      );
      expect(reading).toContain(
        `adjusted win rates on these matches is ${num(row('same matches', 'pearson r', pair), 3)}.`,
      );
      expect(reading).toContain(
        `Each judge on its own matches instead (gpt-4 on the 2,400 it read in both orders, ${JUDGE} on its 2,027; 95% intervals from 1,000 rounds resampling the 80 questions): ${pct(ol)} against ${pct(og)} inconsistent, ${num(ratio, 2)} times, and r ${num(r, 3)} over the 2,400 matches both judged.`,
      );
      // the naive figures never come first
      expect(reading.indexOf('own matches')).toBeGreaterThan(reading.indexOf('these matches'));
    } finally {
      await store.close();
    }
  }, 300_000);

  it('power: questions needed to separate each model from the next, for both judges = tests/reference/power.py', async () => {
    const run = (gap: string) =>
      referenceOnce<Record<'gpt-4' | 'llama', Record<string, number | string | boolean | null>[]>>(
        'power.py',
        [FILE, join(MT!, 'human_judgments/mt_bench_gpt4_pair.csv'), gap, '0.05', '0.8'],
        60_000,
      );
    const close = (got: Record<string, unknown>[], want: Record<string, unknown>[]) => {
      expect(got.map((r) => [r.model1, r.model2])).toEqual(want.map((r) => [r.model1, r.model2]));
      got.forEach((r, k) => {
        const w = want[k]!;
        for (const f of ['questions', 'matches', 'separated', 'questionsNeeded', 'matchesNeeded'])
          expect(r[f], `${String(r.model1)} ${f}`).toEqual(w[f]);
        for (const f of ['winRate', 'sdPerQuestion', 'se', 'gap'])
          expect(r[f] as number, `${String(r.model1)} ${f}`).toBeCloseTo(w[f] as number, 12);
      });
    };
    const observed = run('observed');
    const gap = run('0.05');
    for (const [judge, ref] of [
      ['gpt-4', 'gpt-4'],
      [JUDGE, 'llama'],
    ] as const) {
      const got = await arenaJson<{ rows: Record<string, unknown>[] }>([
        'power',
        '--judge',
        judge,
        '--db',
        db,
      ]);
      close(got.rows, observed[ref]);
      const at = await arenaJson<{ rows: Record<string, unknown>[] }>([
        ...['power', '--judge', judge, '--gap', '0.05', '--db', db],
      ]);
      close(at.rows, gap[ref]);
    }
    // one pair by name, either way round
    const pair = await arenaJson<{ rows: { winRate: number; questionsNeeded: number }[] }>([
      ...['power', '--judge', 'gpt-4', '--models', 'claude-v1,gpt-4', '--db', db],
    ]);
    expect(pair.rows[0]!.winRate).toBeCloseTo(1 - (observed['gpt-4'][0]!.winRate as number), 12);
    expect(pair.rows[0]!.questionsNeeded).toBe(observed['gpt-4'][0]!.questionsNeeded);
  }, 120_000);

  it('ratings --ties rao-kupper (GPT-4) and --position (the study judge, with its clustered SE) = tests/reference/bt_variants.py (scipy)', async () => {
    type Fit = { models: string[]; ratings: number[]; logLik: number } & Record<string, unknown>;
    const want = referenceOnce<{ raoKupper: Fit; position: Fit }>(
      'bt_variants.py',
      [FILE, join(MT!, 'human_judgments/mt_bench_gpt4_pair.csv')],
      60_000,
    );
    const rk = await arenaJson<Fit>(['ratings', '--judge', 'gpt-4', '--ties', 'rao-kupper', '--db', db]);
    const pos = await arenaJson<Fit>(['ratings', '--judge', JUDGE, '--position', '--db', db]);
    for (const [got, w, extra] of [
      [rk, want.raoKupper, ['theta', 'tieAtEqual']],
      // the position term's standard error, clustered by question, and the one that treats games as independent
      [pos, want.position, ['position', 'firstAtEqual', 'se', 'seIndependent', 'questions']],
    ] as const) {
      expect(got.models).toEqual(w.models);
      got.ratings.forEach((r, k) => expect(Math.abs(r - w.ratings[k]!), got.models[k]).toBeLessThan(0.01));
      expect(got.logLik).toBeCloseTo(w.logLik, 6);
      for (const f of extra) expect(got[f] as number, f).toBeCloseTo(w[f] as number, 4);
      expect(got.converged).toBe(true);
    }
    // the study judge prefers the answer shown first; a tie under GPT-4 is an outcome of its own (θ > 1)
    expect(pos.position as number).toBeGreaterThan(10);
    // games of one question are correlated: the clustered SE is wider than the one that ignores it
    expect(pos.se as number).toBeGreaterThan(pos.seIndependent as number);
    expect(rk.theta as number).toBeGreaterThan(2);
    // GPT-4 from the gpt4_pair split has no games: no order to fit a position term on
    const r = await runArena(['ratings', '--judge', 'gpt-4', '--position', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--position needs gpt-4's games, each in its order");
  }, 60_000);

  it('reparse --parser lenient replaces the recorded verdicts and --parser recorded restores every one of them', async () => {
    // on the study's games alone (MT-Bench's questions and the file, imported by the same command): beside the release's votes
    // and GPT-4's judgments each of the two writes would rebuild their reports as well (about 2.5 s of CPU a write)
    const own = join(dir, 'study.db');
    await arenaOk(['import', 'questions', join(MT!, 'question.jsonl'), '--db', own]);
    await arenaOk(['import', 'judgments', FILE, '--judge', JUDGE, '--db', own]);
    const rows = () =>
      sqlRows<{ id: string; verdict: string; parser: string }>(
        own,
        'SELECT id, verdict, parser FROM games WHERE judge = ? ORDER BY id',
        JUDGE,
      );
    const before = rows();
    const recorded = before.filter((r) => r.parser === 'recorded').length;
    expect(recorded).toBe(ref.parsers.recordedDiffersFromFastchat);
    await arenaOk(['reparse', '--judge', JUDGE, '--parser', 'lenient', '--db', own]);
    expect(rows().filter((r) => r.parser === 'recorded')).toHaveLength(0);
    expect(rows()).not.toEqual(before);
    const out = await arenaOk(['reparse', '--judge', JUDGE, '--parser', 'recorded', '--db', own]);
    expect(out).toContain('4800 games re-parsed with recorded');
    expect(rows()).toEqual(before);
  }, 120_000);
});

describe('recorded judgments in other shapes', () => {
  const dir = tmpDir('arena-recorded-');
  const db = join(dir, 'arena.db');
  const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const line = (over: Record<string, unknown>) => ({
    question_id: 1,
    model_1: 'm1',
    model_2: 'm2',
    g1_winner: 'model_1',
    g2_winner: 'model_1',
    judge: ['serving-software', 'my-pair'],
    g1_user_prompt: 'u1',
    g1_judgment: '[[A]]',
    g2_user_prompt: 'u2',
    g2_judgment: '[[B]]',
    turn: 1,
    tstamp: 1.5,
    ...over,
  });

  it('a plain file with extra fields and a verdict only a lenient parser gives imports; the summary names the count; reparse re-reads it', async () => {
    writeFileSync(join(dir, 'q.jsonl'), jsonl({ question_id: 1, category: 'writing', turns: ['a?', 'b?'] }));
    await arenaOk(['import', 'questions', join(dir, 'q.jsonl'), '--db', db]);
    const file = join(dir, 'study_pair.jsonl');
    writeFileSync(
      file,
      jsonl(
        line({ orig_prompt1: 'SYSTEM\nu1', orig_prompt2: 'SYSTEM\nu2', unknown_field: [1, 2] }),
        line({ model_2: 'm3', g1_judgment: 'So [[Assistant A]] wins.', g2_judgment: '[B]' }),
      ),
    );
    const out = await arenaOk(['import', 'judgments', file, '--judge', 'my-judge', '--db', db]);
    expect(out).toContain('4 games');
    expect(out).toContain('2 of 4 recorded verdict(s) differ');
    const sqlite = new Database(db, { readonly: true });
    const rows = sqlite
      .prepare(
        'SELECT judge, model_2, "order", verdict, parser, system_prompt FROM games ORDER BY model_2, "order"',
      )
      .all() as Record<string, string>[];
    sqlite.close();
    expect(rows.map((r) => [r.judge, r.model_2, r.order, r.verdict, r.parser])).toEqual([
      ['my-judge', 'm2', 'AB', 'model_1', 'fastchat@1'],
      ['my-judge', 'm2', 'BA', 'model_1', 'fastchat@1'],
      ['my-judge', 'm3', 'AB', 'model_1', 'recorded'],
      ['my-judge', 'm3', 'BA', 'model_1', 'recorded'],
    ]);
    expect(rows[0]!.system_prompt).toBe('SYSTEM');
    const fc = await arenaJson<{ errors: number; changed: number }>([
      'reparse',
      '--judge',
      'my-judge',
      '--parser',
      'fastchat',
      '--db',
      db,
    ]);
    expect([fc.errors, fc.changed]).toEqual([2, 2]);
    const len = await arenaJson<{ errors: number; changed: number }>([
      'reparse',
      '--judge',
      'my-judge',
      '--parser',
      'lenient',
      '--db',
      db,
    ]);
    expect([len.errors, len.changed]).toEqual([0, 2]);
  }, 120_000);
});
