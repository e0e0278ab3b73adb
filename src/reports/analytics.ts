// Judge-quality analytics read from the store: position bias, kappa, bootstrap intervals, length.
import { exactWhenAlike } from '../core/stats/exact.ts';
import { isHumanJudge } from '../core/constants.ts';
import {
  positionBias,
  conflictFromOutcomes,
  type BiasDimension,
  type BiasGame,
  type BiasRow,
  type ConflictRow,
} from '../core/stats/bias.ts';
import { battleSides, ratingsByGroup } from '../core/groups.ts';
import { battleTable, type ClusteredBattle } from '../core/stats/battle-table.ts';
import { bootstrapBradleyTerry } from '../core/stats/rating-bootstrap.ts';
import {
  clusterBootstrap,
  columnIntervals,
  DEFAULT_LEVEL,
  type BootstrapOptions,
} from '../core/stats/bootstrap.ts';
import {
  fewQuestionsNote,
  MIN_QUESTIONS,
  tooFewQuestions,
  type BootstrapRatings,
  type ResampleUnit,
} from '../core/stats/rating-rows.ts';
import {
  calibrate,
  conflictByGap,
  FAIR_PAIR,
  FAIR_PAIR_MULTI_TURN,
  scoreVerdict,
  type GapRow,
  type ScoreSample,
} from '../core/stats/calibration.ts';
import { comparisons, kappaTable, type KappaRow } from '../core/stats/kappa.ts';
import { lengthControlledWinRates, longerShare } from '../core/stats/length.ts';
import type { PreliminaryRule } from '../core/stats/rank-intervals.ts';
import { sandwichBradleyTerry } from '../core/stats/sandwich.ts';
import type { MatchItem } from '../core/types.ts';
import { itemKey, matchKey, storedVerdictOf } from '../core/outcomes.ts';
import type { Store } from '../storage/store.ts';
import { answerLengths, countedOutcomes, judgeBattles, judgeData, voteOutcome } from './results.ts';

async function categories(store: Store): Promise<Map<number, string>> {
  return new Map((await store.catalog.questions()).map((q) => [q.id, q.category]));
}

export interface BiasReport {
  judge: string;
  /** from games played in both orders: per-order win rates and conflicts */
  games: BiasRow[];
  /** from recorded combined verdicts (no per-order games): the conflict (inconsistent) rate only */
  recorded: ConflictRow[];
  /** score-based games (arena calibrate): the conflict rate of the first samples by calibrated score gap */
  byGap?: GapRow[];
}

const SCORE_SCHEMES = new Set([FAIR_PAIR.name, FAIR_PAIR_MULTI_TURN.name]);

/** The position-bias table of one judge: per-order figures from games, the conflict rate from recorded verdicts. */
export async function biasReport(
  store: Store,
  judge: string,
  by: BiasDimension[] = ['pair'],
  o: { only?: (m: MatchItem) => boolean } = {},
): Promise<BiasReport> {
  const keep = o.only ?? (() => true);
  const games = (await store.games.facts({ judge, kind: 'pairwise' })).filter((g) =>
    keep({ ...g.match, model2: g.match.model2! }),
  );
  // a score scheme's verdict is read again from its reply (whatever a pair parser stored): only such games' texts
  const scoring = games.some((g) => SCORE_SCHEMES.has(g.promptName));
  const replies = new Map(
    scoring ? (await store.games.list({ judge, kind: 'pairwise' })).map((g) => [g.id, g.reply]) : [],
  );
  const reply = (id: string) => replies.get(id) ?? '';
  const bias: BiasGame[] = games.map((g) => ({
    ...storedVerdictOf(g),
    category: g.match.category,
    ...(SCORE_SCHEMES.has(g.promptName) ? { verdict: scoreVerdict(reply(g.id), g.order) } : {}),
  }));
  const scored = new Map<string, ScoreSample[]>();
  for (const g of games) {
    if (!SCORE_SCHEMES.has(g.promptName)) continue;
    const k = matchKey({ ...g.match, model2: g.match.model2! });
    scored.set(k, [
      ...(scored.get(k) ?? []),
      { order: g.order, sample: Number(g.judgeSettings.sample ?? 0), reply: reply(g.id) },
    ]);
  }
  // the questions' categories only where the rows are by category (a stored report of every judge reads no question)
  const cats = by.includes('category') ? await categories(store) : undefined;
  const gameItems = new Set(bias.map((g) => itemKey(g.questionId, g.turn, g.model1, g.model2)));
  const recorded = isHumanJudge(judge)
    ? []
    : (await store.votes.list(judge)).filter(
        (v) => keep(v) && !gameItems.has(itemKey(v.questionId, v.turn, v.model1, v.model2)),
      );
  const outcomes = recorded.map((v) => ({ ...voteOutcome(v), category: cats?.get(v.questionId) ?? '?' }));
  return {
    judge,
    games: positionBias(bias, by),
    recorded: conflictFromOutcomes(outcomes, by),
    ...(scored.size ? { byGap: conflictByGap([...scored.values()].map(calibrate)) } : {}),
  };
}

/** Agreement (S1, S2) with Cohen's kappa and question-level bootstrap intervals, per turn and category. */
export async function kappaReport(
  store: Store,
  judge1: string,
  judge2: string,
  o: BootstrapOptions & { byCategory?: boolean } = {},
): Promise<KappaRow[]> {
  const a = await judgeData(store, judge1);
  const same = judge1 === judge2;
  const comps = comparisons(a.votes, same ? 'same' : (await judgeData(store, judge2)).votes);
  const cats = o.byCategory ? await categories(store) : undefined;
  return kappaTable(comps, { ...o, same, ...(cats ? { categoryOf: (q: number) => cats.get(q) } : {}) });
}

/** A judge's battles, each tagged with its question (the bootstrap's cluster). */
export async function clusteredBattles(
  store: Store,
  judge: string,
  turn?: number,
): Promise<ClusteredBattle[]> {
  return judgeBattles(await judgeData(store, judge), judge, turn);
}

interface WinRateInterval {
  model: string;
  matches: number;
  /** (win + tie/2) / (win + loss + tie), errors excluded */
  winRate: number;
  /** null for a model seen on fewer than MIN_QUESTIONS questions (not estimated), and for every model when the
   * table, resampled by question, has fewer than MIN_QUESTIONS_FOR_INTERVALS questions (`note` says why) */
  lo: number | null;
  hi: number | null;
  questions: number;
  sparse?: boolean;
  note?: string;
}

/**
 * Bradley–Terry ratings and win rates with bootstrap intervals over questions (every battle of a question moves
 * together); `unit: 'game'` resamples single battles (too narrow when games of a question are correlated).
 */
export async function intervalReport(
  store: Store,
  judge: string,
  o: BootstrapOptions &
    PreliminaryRule & {
      unit?: ResampleUnit;
      turn?: number;
      prior?: number;
      method?: 'bootstrap' | 'sandwich';
    } = {},
): Promise<{ judge: string; ratings: BootstrapRatings; winRates: WinRateInterval[] }> {
  const all = await clusteredBattles(store, judge, o.turn);
  const fit = (battles: ClusteredBattle[]) => {
    // battles keep their question either way: the question count decides which models are too sparse
    const table = battleTable(battles);
    // the sandwich needs no resampling; `unit` picks its clusters (questions, or single battles)
    const ratings =
      o.method === 'sandwich' ? sandwichBradleyTerry(table, o) : bootstrapBradleyTerry(table, o);
    return { ratings, winRates: winRateIntervals(battles, { ...o, unit: o.unit ?? 'question' }) };
  };
  // groups of models that never met (several tournaments in one database) are fitted and ranked apart
  const { groups, parts, rows } = ratingsByGroup(all, battleSides, fit, (p) => p.ratings.rows);
  if (groups.length <= 1) return { judge, ...parts[0]! };
  return {
    judge,
    ratings: {
      ...parts[0]!.ratings,
      rows,
      disconnected: groups,
      separatedRounds: parts.reduce((n, p) => n + p.ratings.separatedRounds, 0),
      separated: parts.flatMap((p) => p.ratings.separated),
    },
    winRates: parts.flatMap((p) => p.winRates),
  };
}

/** Per-model win rates (ties half) with percentile intervals from the same kind of resampling. */
function winRateIntervals(
  battles: ClusteredBattle[],
  o: BootstrapOptions & { unit: ResampleUnit },
): WinRateInterval[] {
  const models = [...new Set(battles.flatMap((b) => [b.a, b.b]))].sort();
  const mi = new Map(models.map((m, k) => [m, k]));
  const clusters = new Map<string | number, number>();
  battles.forEach((b, k) => {
    const c = o.unit === 'game' ? k : b.cluster;
    if (!clusters.has(c)) clusters.set(c, clusters.size);
  });
  const nm = models.length;
  // per cluster and model: score sum and count
  const per = new Float64Array(clusters.size * nm * 2);
  battles.forEach((b, k) => {
    const c = clusters.get(o.unit === 'game' ? k : b.cluster)!;
    const ia = mi.get(b.a)!;
    const ib = mi.get(b.b)!;
    per[(c * nm + ia) * 2]! += b.score;
    per[(c * nm + ia) * 2 + 1]! += 1;
    per[(c * nm + ib) * 2]! += 1 - b.score;
    per[(c * nm + ib) * 2 + 1]! += 1;
  });
  const rates = (w?: Float64Array) => {
    const s = new Float64Array(nm);
    const n = new Float64Array(nm);
    for (let c = 0; c < clusters.size; c++) {
      const wc = w ? w[c]! : 1;
      if (!wc) continue;
      for (let m = 0; m < nm; m++) {
        s[m]! += wc * per[(c * nm + m) * 2]!;
        n[m]! += wc * per[(c * nm + m) * 2 + 1]!;
      }
    }
    return { s, n, r: s.map((x, m) => (n[m] ? x / n[m]! : NaN)) };
  };
  const full = rates();
  const iv = columnIntervals(
    clusterBootstrap(clusters.size, (w) => rates(w).r, o),
    nm,
    o.level ?? DEFAULT_LEVEL,
  );
  const questions = models.map(
    (m) => new Set(battles.filter((b) => b.a === m || b.b === m).map((b) => b.cluster)).size,
  );
  const few = tooFewQuestions(o.unit, new Set(battles.map((b) => b.cluster)).size);
  // the one interval rule (core/stats/exact.ts): every cluster scored alike (a model that won every game) gives
  // the exact interval over the clusters, not the bootstrap's point
  const alike = (m: number) => {
    const r: number[] = [];
    for (let c = 0; c < clusters.size; c++) {
      const n = per[(c * nm + m) * 2 + 1]!;
      if (n) r.push(per[(c * nm + m) * 2]! / n);
    }
    return exactWhenAlike(r, [0, 1], o.level ?? DEFAULT_LEVEL);
  };
  return models
    .map((model, m) => {
      const sparse = questions[m]! < MIN_QUESTIONS;
      const none = sparse || few !== undefined;
      const shown = none ? undefined : (alike(m) ?? iv[m]!);
      return {
        model,
        matches: full.n[m]!,
        winRate: full.r[m]!,
        lo: shown ? shown.lo : null,
        hi: shown ? shown.hi : null,
        questions: questions[m]!,
        ...(sparse ? { sparse } : {}),
        ...(few !== undefined && !sparse ? { note: fewQuestionsNote(few) } : {}),
      };
    })
    .sort((a, b) => b.winRate - a.winRate || (a.model < b.model ? -1 : 1));
}

/**
 * Does the judge favour the longer answer (the joint model's length effect, or why it is not estimable), and the
 * length-controlled win rates beside the raw ones.
 */
export async function lengthReport(
  store: Store,
  judge: string,
  o: BootstrapOptions & { turn?: number } = {},
) {
  const d = await judgeData(store, judge);
  const length = await answerLengths(store);
  const matches = [];
  let missing = 0;
  for (const m of countedOutcomes(d, judge)) {
    if (o.turn !== undefined && m.turn !== o.turn) continue;
    const l1 = length(m.model1, m.questionId, m.turn);
    const l2 = length(m.model2, m.questionId, m.turn);
    if (l1 === undefined || l2 === undefined) {
      missing++;
      continue;
    }
    matches.push({
      questionId: m.questionId,
      model1: m.model1,
      model2: m.model2,
      len1: l1,
      len2: l2,
      outcome: m.outcome,
    });
  }
  const lc = lengthControlledWinRates(matches, o);
  return {
    judge,
    longer: longerShare(matches),
    lengthEffect: lc.effect,
    notEstimable: lc.notEstimable,
    measure: lc.measure,
    models: lc.models,
    level: lc.level,
    rounds: lc.rounds,
    failedRounds: lc.failedRounds,
    missingAnswers: missing,
    ...(lc.intervalsWithheld ? { intervalsWithheld: lc.intervalsWithheld } : {}),
  };
}
