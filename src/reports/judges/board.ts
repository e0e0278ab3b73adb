// The judge leaderboard (`arena judges --board`, the site's /judges): every judge in the database, with
// agreement with the experts (S1/S2 per turn, Cohen's kappa), accuracy on each labelled set (natural vs
// adversarial), position consistency, first-position preference, error rate, tie rate, the longer-answer
// share of decisive verdicts, and cost and seconds per 1,000 games where stored; each with an interval.
import type { BootstrapOptions } from '../core/stats/bootstrap.ts';
import {
  behaviourRates,
  ranksWithIntervals,
  recordedRates,
  type BoardGame,
  type Rate,
} from '../core/stats/judge-board.ts';
import { comparisons, kappaTable } from '../core/stats/kappa.ts';
import { accuracyRow, type LabelledItem, type PairGame } from '../core/stats/pair-accuracy.ts';
import { ArenaError } from '../core/types.ts';
import { pairGameOf } from '../core/verdict.ts';
import type { Store } from '../storage/store.ts';
import { pairSetData } from './accuracy.ts';
import { judgeData } from './results.ts';
import { AUTHOR, GOLD, HUMAN, OUTPUT_1, OUTPUT_2 } from '../core/constants.ts';

/** Judges that are references, not judges to rank: the experts, the paper's authors, the gold labels. */
export const NOT_ON_BOARD = new Set([HUMAN, AUTHOR, GOLD]);

export interface ExpertAgreement {
  /** 0: both turns pooled */
  turn: number;
  setup: 'with-tie' | 'without-tie';
  total: number;
  agree: number;
  ratio: number;
  kappa: number | null;
  lo: number | null;
  hi: number | null;
}

export interface SetAccuracy {
  /** a set (`Natural`, `Adversarial/Neighbor`) or, with `group`, a family of sets pooled (`Adversarial`) */
  set: string;
  group: boolean;
  prompt: string;
  total: number;
  accuracy: number | null;
  lo: number | null;
  hi: number | null;
}

export interface BoardRow {
  judge: string;
  /** rank by accuracy over every labelled item: 1 + judges whose interval lies wholly above (null: no labelled games) */
  rank: number | null;
  /** rank by Cohen's kappa with the experts (S1, turns pooled), the same way */
  rankExperts: number | null;
  /** pairwise games stored (tournament and labelled sets) */
  games: number;
  /** where the behaviour rates come from: games, recorded combined verdicts only, or nothing */
  source: 'games' | 'recorded' | 'none';
  experts: ExpertAgreement[];
  accuracy: SetAccuracy[];
  /** every labelled item of every set pooled, both orders */
  accuracyOverall: Rate | null;
  consistency: Rate | null;
  firstPosition: Rate | null;
  errorRate: Rate | null;
  tieRate: Rate | null;
  longerShare: Rate | null;
  /** USD and seconds per 1,000 games, over the games that stored them (null: none did) */
  costPer1000Games: number | null;
  secondsPer1000Games: number | null;
  level: number;
}

const topLevel = (set: string) => set.split('/')[0]!;

/** The board, ranked: judges with labelled-set accuracy first (by it), then by agreement with the experts. */
export async function judgeBoard(
  store: Store,
  o: BootstrapOptions & { judges?: string[] } = {},
): Promise<BoardRow[]> {
  const level = o.level ?? 0.95;
  const tournament = await store.listJudges();
  const sets = await pairSetData(store);
  const all = [
    ...new Set([...tournament.map((j) => j.judge), ...sets.flatMap((s) => s.games.map((g) => g.judge))]),
  ]
    .filter((j) => !NOT_ON_BOARD.has(j))
    .sort();
  // a misspelled judge would leave an empty board ("no judges in the database"): name the ones there are
  const unknown = (o.judges ?? []).filter((j) => !all.includes(j));
  if (unknown.length)
    throw new ArenaError(
      `no judge ${unknown.map((j) => `"${j}"`).join(', ')} on the judge leaderboard (judges: ${all.join(', ') || 'none'}; ${[...NOT_ON_BOARD].join(', ')} are references, not rows)`,
    );
  const names = all.filter((j) => !o.judges || o.judges.includes(j));
  const lengths = new Map<string, number[]>();
  for (const a of await store.listAnswers())
    lengths.set(
      `${a.model}\u0000${a.questionId}`,
      a.turns.map((t) => t.length),
    );
  for (const s of sets)
    for (const a of await store.listAnswers([OUTPUT_1, OUTPUT_2], { set: s.set }))
      lengths.set(
        `${a.model}\u0000${a.questionId}`,
        a.turns.map((t) => t.length),
      );
  const len = (model: string, q: number, turn: number) => lengths.get(`${model}\u0000${q}`)?.[turn - 1];
  const human = tournament.some((j) => j.judge === HUMAN && j.votes > 0)
    ? (await judgeData(store, HUMAN)).votes
    : [];

  const rows: BoardRow[] = [];
  for (const judge of names) {
    const games = await store.listGames({ judge, kind: 'pairwise', withSets: true });
    const board: BoardGame[] = games.map((g) => ({
      ...pairGameOf(g),
      len1: len(g.match.model1, g.match.questionId, g.match.turn),
      len2: len(g.match.model2!, g.match.questionId, g.match.turn),
    }));
    const data = tournament.some((j) => j.judge === judge)
      ? await judgeData(store, judge)
      : { outcomes: [], votes: [] };
    let behaviour: Pick<BoardRow, 'consistency' | 'firstPosition' | 'errorRate' | 'tieRate' | 'longerShare'> =
      { consistency: null, firstPosition: null, errorRate: null, tieRate: null, longerShare: null };
    let source: BoardRow['source'] = 'none';
    if (board.length) {
      behaviour = behaviourRates(board, o);
      source = 'games';
    } else if (data.outcomes.length) {
      behaviour = {
        ...behaviour,
        ...recordedRates(
          data.outcomes.map((m) => ({
            questionId: m.questionId,
            outcome: m.outcome,
            len1: len(m.model1, m.questionId, m.turn),
            len2: len(m.model2, m.questionId, m.turn),
          })),
          o,
        ),
      };
      source = 'recorded';
    }
    // agreement with the experts, as `arena kappa --judges J,human` (per turn), plus both turns pooled
    const experts: ExpertAgreement[] = [];
    if (human.length && data.votes.length) {
      const comps = comparisons(data.votes, human);
      const table = [
        ...kappaTable(comps, o),
        ...kappaTable(
          comps.map((c) => ({ ...c, turn: 0 })),
          o,
        ),
      ];
      for (const k of table)
        if (k.category === 'all' && k.total)
          experts.push({
            turn: k.turn,
            setup: k.setup,
            total: k.total,
            agree: k.agree,
            ratio: k.ratio,
            kappa: fin(k.kappa),
            lo: fin(k.lo),
            hi: fin(k.hi),
          });
    }
    // accuracy per labelled set, per family of sets (Natural vs Adversarial), and over all of them
    const accuracy: SetAccuracy[] = [];
    const pooled = new Map<string, { items: LabelledItem[]; games: PairGame[]; prompt: string }>();
    const pool = (key: string, items: LabelledItem[], g: PairGame[], prompt: string) => {
      const p = pooled.get(key) ?? { items: [], games: [], prompt };
      p.items.push(...items);
      p.games.push(...g);
      pooled.set(key, p);
    };
    for (const s of sets) {
      // a judge run on a set with several prompt schemes: the scheme with the most games speaks for it
      const mine = s.games
        .filter((g) => g.judge === judge)
        .sort((a, b) => b.games.length - a.games.length)[0];
      if (!mine) continue;
      const r = accuracyRow(s.set, judge, mine.prompt, s.items, mine.games, o);
      accuracy.push({
        set: s.set,
        group: false,
        prompt: mine.prompt,
        total: r.total,
        accuracy: r.accuracy,
        lo: fin(r.intervals.accuracy.lo),
        hi: fin(r.intervals.accuracy.hi),
      });
      if (topLevel(s.set) !== s.set) pool(topLevel(s.set), s.items, mine.games, mine.prompt);
      pool('\u0000all', s.items, mine.games, mine.prompt);
    }
    let accuracyOverall: Rate | null = null;
    for (const [key, p] of pooled) {
      const r = accuracyRow(key, judge, p.prompt, p.items, p.games, o);
      const rate = {
        value: r.accuracy,
        lo: fin(r.intervals.accuracy.lo),
        hi: fin(r.intervals.accuracy.hi),
        n: r.total,
      };
      if (key === '\u0000all') accuracyOverall = rate;
      else
        accuracy.push({
          set: key,
          group: true,
          prompt: p.prompt,
          total: r.total,
          accuracy: r.accuracy,
          lo: rate.lo,
          hi: rate.hi,
        });
    }
    const costs = games.filter((g) => g.cost !== undefined && g.cost !== null);
    const latencies = games.filter((g) => g.latencyMs !== undefined && g.latencyMs !== null);
    rows.push({
      judge,
      rank: null,
      rankExperts: null,
      games: games.length,
      source,
      experts,
      accuracy,
      accuracyOverall,
      ...behaviour,
      costPer1000Games: costs.length ? (1000 * costs.reduce((s, g) => s + g.cost!, 0)) / costs.length : null,
      // mean milliseconds per game = seconds per 1,000 games
      secondsPer1000Games: latencies.length
        ? latencies.reduce((s, g) => s + g.latencyMs!, 0) / latencies.length
        : null,
      level,
    });
  }
  const acc = ranksWithIntervals(rows.map((r) => r.accuracyOverall ?? { value: null, lo: null, hi: null }));
  const s1 = (r: BoardRow) => r.experts.find((e) => e.turn === 0 && e.setup === 'with-tie');
  const exp = ranksWithIntervals(
    rows.map((r) => {
      const e = s1(r);
      return e ? { value: e.kappa, lo: e.lo, hi: e.hi } : { value: null, lo: null, hi: null };
    }),
  );
  rows.forEach((r, i) => ((r.rank = acc[i]!), (r.rankExperts = exp[i]!)));
  const key = (r: BoardRow) => [r.accuracyOverall?.value ?? -Infinity, s1(r)?.kappa ?? -Infinity];
  return rows.sort((a, b) => {
    const [a1, a2] = key(a);
    const [b1, b2] = key(b);
    return b1! - a1! || b2! - a2! || (a.judge < b.judge ? -1 : 1);
  });
}

function fin(x: number | null | undefined): number | null {
  return x !== null && x !== undefined && Number.isFinite(x) ? x : null;
}

/** The board as one flat row per judge (the site's /api/judge-board and its CSV). */
export const BOARD_COLUMNS = [
  'judge',
  'rank',
  'games',
  'source',
  'accuracy',
  'accuracyLo',
  'accuracyHi',
  'accuracyBySet',
  'rankExperts',
  'expertsS1Kappa',
  'expertsS1KappaLo',
  'expertsS1KappaHi',
  'expertsS2Agreement',
  'experts',
  'consistency',
  'consistencyLo',
  'consistencyHi',
  'firstPosition',
  'firstPositionLo',
  'firstPositionHi',
  'errorRate',
  'errorRateLo',
  'errorRateHi',
  'tieRate',
  'tieRateLo',
  'tieRateHi',
  'longerShare',
  'longerShareLo',
  'longerShareHi',
  'costPer1000Games',
  'secondsPer1000Games',
  'level',
] as const;

export function flatBoardRow(r: BoardRow): Record<(typeof BOARD_COLUMNS)[number], unknown> {
  const s1 = r.experts.find((e) => e.turn === 0 && e.setup === 'with-tie');
  const s2 = r.experts.find((e) => e.turn === 0 && e.setup === 'without-tie');
  const rate = (name: string, x: Rate | null) => ({
    [name]: x?.value ?? null,
    [`${name}Lo`]: x?.lo ?? null,
    [`${name}Hi`]: x?.hi ?? null,
  });
  return {
    judge: r.judge,
    rank: r.rank,
    games: r.games,
    source: r.source,
    ...rate('accuracy', r.accuracyOverall),
    accuracyBySet: r.accuracy,
    rankExperts: r.rankExperts,
    expertsS1Kappa: s1?.kappa ?? null,
    expertsS1KappaLo: s1?.lo ?? null,
    expertsS1KappaHi: s1?.hi ?? null,
    expertsS2Agreement: s2?.ratio ?? null,
    experts: r.experts,
    ...rate('consistency', r.consistency),
    ...rate('firstPosition', r.firstPosition),
    ...rate('errorRate', r.errorRate),
    ...rate('tieRate', r.tieRate),
    ...rate('longerShare', r.longerShare),
    costPer1000Games: r.costPer1000Games,
    secondsPer1000Games: r.secondsPer1000Games,
    level: r.level,
  } as Record<(typeof BOARD_COLUMNS)[number], unknown>;
}
