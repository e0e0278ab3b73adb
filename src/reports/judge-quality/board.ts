// The judge leaderboard (`arena judges --board`, the site's /judges): every judge with its agreement with the experts,
// accuracy on each labelled set, behaviour rates, and cost and seconds per 1,000 games; each with an interval.
import type { BootstrapOptions } from '../../core/stats/bootstrap.ts';
import {
  behaviourRates,
  ranksWithIntervals,
  recordedRates,
  type BoardGame,
  type Rate,
} from '../../core/stats/judge-behaviour.ts';
import { comparisons, kappaTable } from '../../core/stats/kappa.ts';
import {
  accuracyRow,
  familyAccuracy,
  type LabelledItem,
  type LabelledGame,
} from '../../core/stats/pair-accuracy.ts';
import { ArenaError, type Vote } from '../../core/types.ts';
import { pairGameOf } from '../../core/outcomes.ts';
import type { GameFacts, Store } from '../../storage/store.ts';
import { pairSetData, type SetData } from '../accuracy.ts';
import { answerLengths, judgeData, type JudgeData, type Lengths } from '../results.ts';
import { ANNOTATORS, AUTHOR, GOLD, HUMAN } from '../../core/constants.ts';

/** Judges that are references, not judges to rank: the experts, the paper's authors, the gold labels. */
const NOT_ON_BOARD = new Set([HUMAN, AUTHOR, GOLD, ANNOTATORS]);

interface ExpertAgreement {
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

interface SetAccuracy {
  /** a set (`Natural`, `Adversarial/Neighbor`) or, with `group`, a family of sets (`Adversarial`) */
  set: string;
  group: boolean;
  prompt: string;
  total: number;
  /** a family's: the mean of its sets' accuracies, as LLMBar's paper reports it (interval: stratified bootstrap) */
  accuracy: number | null;
  lo: number | null;
  hi: number | null;
  /** a family only: how many sets it averages, and the accuracy over their items pooled */
  sets?: number;
  pooledAccuracy?: number | null;
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

type Options = BootstrapOptions & { judges?: string[] };
type Behaviour = Pick<BoardRow, 'consistency' | 'firstPosition' | 'errorRate' | 'tieRate' | 'longerShare'>;

const topLevel = (set: string) => set.split('/')[0]!;
/** the key of every labelled item pooled (no set is named with a NUL) */
const ALL_SETS = '\u0000all';

/** The board, ranked: judges with labelled-set accuracy first (by it), then by agreement with the experts. */
export async function judgeBoard(store: Store, o: Options = {}): Promise<BoardRow[]> {
  const level = o.level ?? 0.95;
  const tournament = await store.games.judges();
  const sets = await pairSetData(store);
  const names = boardJudges(tournament, sets, o.judges);
  const len = await answerLengths(store, sets);
  const human = tournament.some((j) => j.judge === HUMAN && j.votes > 0)
    ? (await judgeData(store, HUMAN)).votes
    : [];

  const rows: BoardRow[] = [];
  for (const judge of names) {
    const games = await store.games.facts({ judge, kind: 'pairwise', withSets: true });
    const data = tournament.some((j) => j.judge === judge)
      ? await judgeData(store, judge)
      : { outcomes: [], votes: [] };
    const { source, ...behaviour } = behaviourOf(games, data, len, o);
    const experts = expertAgreement(data.votes, human, o);
    const { accuracy, accuracyOverall } = setAccuracy(judge, sets, o);
    // the keys in this order: `arena judges --board --json` prints the rows as they are
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
      ...costAndTime(games),
      level,
    });
  }
  return ranked(rows);
}

/** The judges on the board, by name: every judge with games or votes but the references (`only` narrows them). */
function boardJudges(tournament: { judge: string }[], sets: SetData[], only: string[] | undefined): string[] {
  const all = [
    ...new Set([...tournament.map((j) => j.judge), ...sets.flatMap((s) => s.games.map((g) => g.judge))]),
  ]
    .filter((j) => !NOT_ON_BOARD.has(j))
    .sort();
  // a misspelled judge would leave an empty board ("no judges in the database"): name the ones there are
  const unknown = (only ?? []).filter((j) => !all.includes(j));
  if (unknown.length)
    throw new ArenaError(
      `no judge ${unknown.map((j) => `"${j}"`).join(', ')} on the judge leaderboard (judges: ${all.join(', ') || 'none'}; ${[...NOT_ON_BOARD].join(', ')} are references, not rows)`,
    );
  return all.filter((j) => !only || only.includes(j));
}

/** The behaviour rates from the judge's games, else from its recorded outcomes (consistency and length only). */
function behaviourOf(
  games: GameFacts[],
  data: JudgeData,
  len: Lengths,
  o: Options,
): Behaviour & { source: BoardRow['source'] } {
  const board: BoardGame[] = games.map((g) => ({
    ...pairGameOf(g),
    len1: len(g.match.model1, g.match.questionId, g.match.turn),
    len2: len(g.match.model2!, g.match.questionId, g.match.turn),
  }));
  const none: Behaviour = {
    consistency: null,
    firstPosition: null,
    errorRate: null,
    tieRate: null,
    longerShare: null,
  };
  if (board.length) return { source: 'games', ...behaviourRates(board, o) };
  if (!data.outcomes.length) return { source: 'none', ...none };
  const recorded = recordedRates(
    data.outcomes.map((m) => ({
      questionId: m.questionId,
      outcome: m.outcome,
      len1: len(m.model1, m.questionId, m.turn),
      len2: len(m.model2, m.questionId, m.turn),
    })),
    o,
  );
  return { source: 'recorded', ...none, ...recorded };
}

/** Agreement with the experts, as `arena kappa --judges J,human` (per turn), plus both turns pooled (turn 0). */
function expertAgreement(votes: Vote[], human: Vote[], o: Options): ExpertAgreement[] {
  const experts: ExpertAgreement[] = [];
  if (!human.length || !votes.length) return experts;
  const comps = comparisons(votes, human);
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
  return experts;
}

/** Accuracy per labelled set, per family of sets (Natural vs Adversarial), and over all of them. */
function setAccuracy(
  judge: string,
  sets: SetData[],
  o: Options,
): Pick<BoardRow, 'accuracy' | 'accuracyOverall'> {
  const accuracy: SetAccuracy[] = [];
  const families = new Map<
    string,
    { members: { items: LabelledItem[]; games: LabelledGame[] }[]; prompt: string }
  >();
  const everything = { items: [] as LabelledItem[], games: [] as LabelledGame[], prompt: '' };
  for (const s of sets) {
    // a judge run on a set with several prompt schemes: the scheme with the most games speaks for it
    const mine = s.games.filter((g) => g.judge === judge).sort((a, b) => b.games.length - a.games.length)[0];
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
    const family = topLevel(s.set);
    if (family !== s.set) {
      const f = families.get(family) ?? { members: [], prompt: mine.prompt };
      f.members.push({ items: s.items, games: mine.games });
      families.set(family, f);
    }
    everything.items.push(...s.items);
    everything.games.push(...mine.games);
    everything.prompt ||= mine.prompt;
  }
  for (const [family, f] of families) {
    const a = familyAccuracy(f.members, o);
    accuracy.push({
      set: family,
      group: true,
      prompt: f.prompt,
      total: a.total,
      accuracy: a.accuracy,
      lo: fin(a.lo),
      hi: fin(a.hi),
      sets: a.sets,
      pooledAccuracy: a.pooledAccuracy,
    });
  }
  let accuracyOverall: Rate | null = null;
  if (everything.items.length) {
    const r = accuracyRow(ALL_SETS, judge, everything.prompt, everything.items, everything.games, o);
    accuracyOverall = {
      value: r.accuracy,
      lo: fin(r.intervals.accuracy.lo),
      hi: fin(r.intervals.accuracy.hi),
      n: r.total,
    };
  }
  return { accuracy, accuracyOverall };
}

/** USD and seconds per 1,000 games, over the games that stored them. */
function costAndTime(games: GameFacts[]): Pick<BoardRow, 'costPer1000Games' | 'secondsPer1000Games'> {
  const costs = games.filter((g) => g.cost !== undefined && g.cost !== null);
  const latencies = games.filter((g) => g.latencyMs !== undefined && g.latencyMs !== null);
  return {
    costPer1000Games: costs.length ? (1000 * costs.reduce((s, g) => s + g.cost!, 0)) / costs.length : null,
    // mean milliseconds per game = seconds per 1,000 games
    secondsPer1000Games: latencies.length
      ? latencies.reduce((s, g) => s + g.latencyMs!, 0) / latencies.length
      : null,
  };
}

/** Both ranks set (by accuracy, by S1 kappa with the experts), the rows sorted by accuracy, then by kappa, then by name. */
function ranked(rows: BoardRow[]): BoardRow[] {
  const none = { value: null, lo: null, hi: null };
  const acc = ranksWithIntervals(rows.map((r) => r.accuracyOverall ?? none));
  const s1 = (r: BoardRow) => r.experts.find((e) => e.turn === 0 && e.setup === 'with-tie');
  const exp = ranksWithIntervals(
    rows.map((r) => {
      const e = s1(r);
      return e ? { value: e.kappa, lo: e.lo, hi: e.hi } : none;
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
