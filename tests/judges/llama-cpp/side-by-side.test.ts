// A local llama.cpp judge and an OpenAI-compatible one side by side through `arena`: the judgment-quality report, and
// escalation to the server judge for exactly the low-confidence and order-inconsistent matches.
import type { JudgesReport } from '../../../src/reports/judge-quality/quality-report.ts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairVerdict } from '../../../src/core/verdict/stored.ts';
import { gameConfidence } from '../../../src/core/stats/confidence.ts';
import type { Game } from '../../../src/core/types.ts';
import { openSqliteStore } from '../../../src/storage/sqlite.ts';
import { arenaJson, runArena, tmpDir } from '../../support/cli.ts';
import { promptHash, startOpenAIServer, type OpenAIServer } from '../../support/openai-server.ts';
import { writeFiles } from './fixtures.ts';
import { writeTinyLlama } from './gguf-writer.ts';
import { llamaJudgeId } from '../../../src/judges/llama-cpp/provider.ts';

const dir = tmpDir('arena-llama-sbs-');
const TINY = join(dir, 'tiny.gguf');
const MODELS = ['m1', 'm2', 'm3'];
// three questions: 9 matches a turn, enough for a confidence threshold with matches on both sides of it
const N_Q = 3;
const MATCHES_PER_TURN = 3 * N_Q;
const LOCAL = `llama-cpp/${TINY}`;
/** the judge's id: the model's name and content hash, not its path (set once the GGUF is written) */
let LOCAL_ID = '';
const SERVER = 'openai/judge';
const files = writeFiles(dir, MODELS, N_Q);
const common = [
  '--questions',
  files.questions,
  '--answers',
  files.answers,
  '--models',
  MODELS.join(','),
  '--turns',
  '1,2',
  '--prompts',
  'arena',
  '--max-tokens',
  '24',
  '--concurrency',
  '4',
];
const env = { OPENAI_API_KEY: 'sk-test' };
const TIMEOUT = 300_000;

/** The server's `longer` policy prefers the longer answer; model mK answers with K sentences, so mK beats mJ when K > J. */
const serverLabel = (m1: string, m2: string) => (m1 > m2 ? 'model_1' : 'model_2');
const matchKey = (g: Game) => `${g.match.questionId}/${g.match.turn}/${g.match.model1}/${g.match.model2}`;

function localMatches(games: Game[]) {
  const by = new Map<string, { ab?: Game; ba?: Game }>();
  for (const g of games) {
    const m = by.get(matchKey(g)) ?? {};
    m[g.order === 'AB' ? 'ab' : 'ba'] = g;
    by.set(matchKey(g), m);
  }
  return [...by.entries()].map(([key, { ab, ba }]) => {
    const outcome =
      ab!.verdict === 'error' || ba!.verdict === 'error'
        ? 'error'
        : ab!.verdict === ba!.verdict
          ? ab!.verdict
          : 'inconsistent';
    return {
      key,
      ab: ab!,
      ba: ba!,
      outcome,
      confidence: Math.min(
        gameConfidence(ab!.verdictProbs, 'AB', pairVerdict(ab!.verdict))!,
        gameConfidence(ba!.verdictProbs, 'BA', pairVerdict(ba!.verdict))!,
      ),
    };
  });
}

let srv: OpenAIServer;
beforeAll(async () => {
  writeTinyLlama(TINY, { seed: 11, scale: 4 });
  LOCAL_ID = llamaJudgeId({ modelPath: TINY });
  srv = await startOpenAIServer({ verdict: 'longer' });
});
afterAll(() => srv?.close());

describe('side by side: llama-cpp and an OpenAI-compatible judge', () => {
  const db = join(dir, 'sbs.db');

  it(
    'one run with two --judge plays every match with each',
    async () => {
      const r = await runArena(
        [
          'run',
          '--db',
          db,
          ...common,
          '--judge',
          `${LOCAL}?threads=1&sequences=4`,
          '--judge',
          SERVER,
          '--base-url',
          srv.url,
        ],
        { env, timeoutMs: TIMEOUT },
      );
      expect(r.stderr + r.stdout).not.toMatch(/failed: /);
      expect(r.code).toBe(0);
      const store = openSqliteStore(db);
      try {
        expect(await store.games.list({ judge: LOCAL_ID })).toHaveLength(4 * MATCHES_PER_TURN);
        expect(await store.games.list({ judge: SERVER })).toHaveLength(4 * MATCHES_PER_TURN);
        expect(srv.completions()).toBe(4 * MATCHES_PER_TURN);
      } finally {
        await store.close();
      }
    },
    TIMEOUT,
  );

  it(
    '`arena judges` reports judgment quality per judge and turn, agreement and win-rate correlation',
    async () => {
      const rep = await arenaJson<JudgesReport>(['judges', '--db', db, '--json', '--report']);
      const store = openSqliteStore(db);
      const local = localMatches(await store.games.list({ judge: LOCAL_ID }));
      await store.close();
      for (const turn of [1, 2]) {
        const s = rep.quality.find((q) => q.judge === SERVER && q.turn === turn)!;
        // the server judge prefers the longer answer in both orders: always consistent, never a tie
        expect(s).toMatchObject({
          games: 2 * MATCHES_PER_TURN,
          matches: MATCHES_PER_TURN,
          errorsOneGame: 0,
          errorsBothGames: 0,
          emptyReplies: 0,
          consistent: MATCHES_PER_TURN,
          inconsistent: 0,
          ties: 0,
          meanConfidence: null,
        });
        const l = rep.quality.find((q) => q.judge === LOCAL_ID && q.turn === turn)!;
        const mine = local.filter((m) => m.key.split('/')[1] === String(turn));
        // grammar on: no errors; consistency and ties as counted from the stored games
        expect(l).toMatchObject({
          games: 2 * MATCHES_PER_TURN,
          matches: MATCHES_PER_TURN,
          errorsOneGame: 0,
          errorsBothGames: 0,
          emptyReplies: 0,
        });
        expect(l.inconsistent).toBe(mine.filter((m) => m.outcome === 'inconsistent').length);
        expect(l.consistent).toBe(MATCHES_PER_TURN - l.inconsistent);
        expect(l.ties).toBe(mine.filter((m) => m.outcome === 'tie').length);
        expect(l.meanConfidence!).toBeGreaterThan(1 / 3);
        expect(l.meanEntropy!).toBeGreaterThan(0);

        const label = (o: string, m1: string, m2: string) =>
          o === 'inconsistent' || o === 'tie' ? 'tie' : o === 'model_1' ? m1 : m2;
        const agreeWithTie = mine.filter((m) => {
          const [, , m1, m2] = m.key.split('/');
          return label(m.outcome, m1!, m2!) === label(serverLabel(m1!, m2!), m1!, m2!);
        }).length;
        const decisive = mine.filter((m) => m.outcome !== 'inconsistent' && m.outcome !== 'tie');
        const agreeNoTie = decisive.filter((m) => {
          const [, , m1, m2] = m.key.split('/');
          return m.outcome === serverLabel(m1!, m2!);
        }).length;
        expect(rep.agreement.find((a) => a.turn === turn && a.setup === 'with-tie')).toMatchObject({
          judge1: expect.any(String),
          total: MATCHES_PER_TURN,
          agree: agreeWithTie,
        });
        expect(rep.agreement.find((a) => a.turn === turn && a.setup === 'without-tie')).toMatchObject({
          total: decisive.length,
          agree: agreeNoTie,
        });
      }
      // the server judge's adjusted win rates are 0, 0.5, 1 for m1, m2, m3; the local judge's from its outcomes
      const wins: Record<string, { w: number; l: number; t: number }> = Object.fromEntries(
        MODELS.map((m) => [m, { w: 0, l: 0, t: 0 }]),
      );
      for (const m of local) {
        const [, , m1, m2] = m.key.split('/') as [string, string, string, string];
        if (m.outcome === 'model_1') (wins[m1]!.w++, wins[m2]!.l++);
        else if (m.outcome === 'model_2') (wins[m2]!.w++, wins[m1]!.l++);
        else (wins[m1]!.t++, wins[m2]!.t++);
      }
      const x = MODELS.map((m) => (wins[m]!.w + wins[m]!.t / 2) / (wins[m]!.w + wins[m]!.l + wins[m]!.t));
      const y = [0, 0.5, 1];
      const mx = x.reduce((a, b) => a + b) / 3;
      const r =
        x.reduce((a, xi, i) => a + (xi - mx) * (y[i]! - 0.5), 0) /
        Math.sqrt(x.reduce((a, xi) => a + (xi - mx) ** 2, 0) * 0.5);
      const c = rep.correlation.find((k) => k.variant === 'adjusted')!;
      expect(c).toMatchObject({ models: 3, matches: 2 * MATCHES_PER_TURN });
      if (Number.isFinite(r)) expect(c.r!).toBeCloseTo(r, 9);
      else expect(c.r).toBeNull();
      expect(rep.correlation.map((k) => k.variant).sort()).toEqual([
        'adjusted',
        'errors-as-ties',
        'without-ties',
      ]);
    },
    TIMEOUT,
  );

  it(
    '`arena judges` as text prints the three tables',
    async () => {
      const r = await runArena(['judges', '--db', db]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/judgment quality/);
      expect(r.stdout).toMatch(/agreement between judges/);
      expect(r.stdout).toMatch(/Pearson correlation of win rates/);
      const g = await runArena(['judges', '--db', db, '--games', LOCAL_ID]);
      expect(g.stdout).toMatch(/pA\s+pB\s+pC\s+entropy/);
    },
    TIMEOUT,
  );
});

describe('escalation: --escalate-to sends exactly the low-confidence and inconsistent matches', () => {
  const db = join(dir, 'esc.db');
  let below = 0.5;
  let expected: ReturnType<typeof localMatches> = [];
  /** `arena run` judged locally, escalating the matches below `below` to `judge` at `baseURL` */
  const escalate = (judge: string, baseURL: string) =>
    runArena(
      [
        'run',
        '--db',
        db,
        ...common,
        '--judge',
        `${LOCAL}?threads=1`,
        '--escalate-to',
        judge,
        '--base-url',
        baseURL,
        '--below',
        String(below),
      ],
      { env, timeoutMs: TIMEOUT },
    );

  it(
    'judges locally, then escalates only the matches it should, and reports count and cost',
    async () => {
      const first = await runArena(['run', '--db', db, ...common, '--judge', `${LOCAL}?threads=1`], {
        env,
        timeoutMs: TIMEOUT,
      });
      expect(first.code).toBe(0);
      let store = openSqliteStore(db);
      const local = localMatches(await store.games.list({ judge: LOCAL_ID }));
      await store.close();
      expect(local).toHaveLength(2 * MATCHES_PER_TURN);
      // a threshold in the middle of the consistent matches' confidences, so some go on and some stay
      const conf = local
        .filter((m) => m.outcome !== 'inconsistent')
        .map((m) => m.confidence)
        .sort((a, b) => a - b);
      if (conf.length) below = conf[Math.floor(conf.length / 2)]!;
      expected = local.filter((m) => m.outcome === 'inconsistent' || m.confidence < below);
      console.log(
        `[escalation test] ${local.length} matches, ${local.filter((m) => m.outcome === 'inconsistent').length} inconsistent, below=${below.toFixed(4)}, ${expected.length} to escalate`,
      );

      const srv2 = await startOpenAIServer({ verdict: 'longer' });
      try {
        const r = await escalate(SERVER, srv2.url);
        expect(r.code).toBe(0);
        expect(r.stdout).toContain(`escalated ${expected.length} of ${2 * MATCHES_PER_TURN} matches`);
        expect(r.stdout).toMatch(new RegExp(`cost of escalation: ${2 * expected.length} calls, \\d+ tokens`));
        // exactly these prompts reached the server: both orders of every escalated match, nothing else
        const asked = srv2.log
          .filter((e) => e.path.endsWith('/chat/completions'))
          .map((e) => e.hash!)
          .sort();
        const want = expected
          .flatMap((m) => [
            promptHash(m.ab.systemPrompt, m.ab.userPrompt),
            promptHash(m.ba.systemPrompt, m.ba.userPrompt),
          ])
          .sort();
        expect(asked).toEqual(want);
      } finally {
        await srv2.close();
      }
      store = openSqliteStore(db);
      expect(await store.games.list({ judge: SERVER })).toHaveLength(2 * expected.length);
      await store.close();
    },
    TIMEOUT,
  );

  it(
    'compares the combined verdicts with judging everything by the second judge once it has',
    async () => {
      const all = await runArena(['run', '--db', db, ...common, '--judge', SERVER, '--base-url', srv.url], {
        env,
        timeoutMs: TIMEOUT,
      });
      expect(all.code).toBe(0);
      const r = await escalate(SERVER, srv.url);
      expect(r.code).toBe(0);
      const esc = new Set(expected.map((m) => m.key));
      const store = openSqliteStore(db);
      const local = localMatches(await store.games.list({ judge: LOCAL_ID }));
      await store.close();
      const tieish = (o: string) => (o === 'inconsistent' ? 'tie' : o);
      const agree = local.filter((m) => {
        if (esc.has(m.key)) return true; // the second judge agrees with itself
        const [, , m1, m2] = m.key.split('/');
        return tieish(m.outcome) === serverLabel(m1!, m2!);
      }).length;
      expect(r.stdout).toContain(
        `agree with ${SERVER} on every match in ${agree} of ${2 * MATCHES_PER_TURN} matches`,
      );
    },
    TIMEOUT,
  );

  it(
    'prices the escalation when the second judge has a price (gpt-4: $30 / $60 per 1M tokens in / out)',
    async () => {
      const srv3 = await startOpenAIServer({ verdict: 'longer' });
      try {
        const r = await escalate('openai/gpt-4', srv3.url);
        expect(r.code).toBe(0);
        const store = openSqliteStore(db);
        const games = await store.games.list({ judge: 'openai/gpt-4' });
        await store.close();
        expect(games).toHaveLength(2 * expected.length);
        const usd = games.reduce((a, g) => a + (g.tokensIn! * 30 + g.tokensOut! * 60) / 1e6, 0);
        expect(r.stdout).toContain(
          `cost of escalation: ${2 * expected.length} calls, ${games.reduce((a, g) => a + g.tokensIn! + g.tokensOut!, 0)} tokens, $${usd.toFixed(4)}`,
        );
      } finally {
        await srv3.close();
      }
    },
    TIMEOUT,
  );
});
