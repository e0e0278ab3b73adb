// Results derived on read from stored games and votes.
import { agreement, type AgreementRow } from '../core/stats/agreement.ts';
import { onlineElo } from '../core/ratings.ts';
import {
  battleTable,
  questionsPerModel,
  tableRecords,
  type ClusteredBattle,
} from '../core/stats/battle-table.ts';
import { fitEstimable, separationNote } from '../core/stats/estimable-fit.ts';
import { MIN_QUESTIONS } from '../core/stats/rating-rows.ts';
import { pairwiseStandings, singleStandings } from '../core/standings.ts';
import { battleSides, connectedModelGroups, ratingsByGroup, splitByGroup } from '../core/groups.ts';
import type { Answer, MatchOutcome, SingleScore, SingleStanding, Standing, Vote } from '../core/types.ts';
import { itemKey, outcomesFromGames, scoreOf, storedVerdictOf } from '../core/outcomes.ts';
import { ratingOf } from '../core/verdict/stored.ts';
import type { GameFacts, Store } from '../storage/store.ts';
import { DEFAULT_BASELINE, isHumanJudge, OUTPUT_1, OUTPUT_2 } from '../core/constants.ts';

export interface JudgeData {
  /** one outcome per match: from played games, else from a recorded verdict */
  outcomes: MatchOutcome[];
  /** the votes as recorded (several per item for humans) */
  votes: Vote[];
}

/** A judge's games paired into matches (a later game replaces an earlier one), and its recorded verdicts. */
export async function judgeData(store: Store, judge: string): Promise<JudgeData> {
  // drift-canary re-judgments are left out by the store's reads: they measure the judge, never move the leaderboard
  const games = await store.games.facts({ judge, kind: 'pairwise' });
  const fromGames = outcomesFromGames(games.map(storedVerdictOf));
  const have = new Set(fromGames.map((o) => itemKey(o.questionId, o.turn, o.model1, o.model2)));
  const votes = await store.votes.list(judge);
  const outcomes = [...fromGames];
  // a judge's recorded verdicts fill in only the items it has no games for; human votes all count
  for (const v of votes) {
    if (!isHumanJudge(judge) && have.has(itemKey(v.questionId, v.turn, v.model1, v.model2))) continue;
    outcomes.push(voteOutcome(v));
  }
  const allVotes: Vote[] = isHumanJudge(judge) ? votes : outcomeVotes(judge, outcomes);
  return { outcomes, votes: allVotes };
}

export function voteOutcome(v: Vote): MatchOutcome {
  return { questionId: v.questionId, turn: v.turn, model1: v.model1, model2: v.model2, outcome: v.winner };
}

/** A judge's outcomes as its votes, one per match with a verdict (what agreement() compares). */
export function outcomeVotes(judge: string, outcomes: MatchOutcome[]): Vote[] {
  return outcomes.flatMap(({ questionId, turn, model1, model2, outcome }) =>
    outcome === 'error' ? [] : [{ judge, voter: judge, questionId, turn, model1, model2, winner: outcome }],
  );
}

/** The matches a judge's figures count: a human judge's every vote (several per item), else one outcome per match. */
export const countedOutcomes = (d: JudgeData, judge: string): MatchOutcome[] =>
  isHumanJudge(judge) ? d.votes.map(voteOutcome) : d.outcomes;

/** Those matches (of one turn, if given) as battles. */
export const judgeBattles = (d: JudgeData, judge: string, turn?: number): ClusteredBattle[] =>
  outcomeBattles(countedOutcomes(d, judge).filter((o) => turn === undefined || o.turn === turn));

/** Matches with a verdict as battles, each tagged with its question (the bootstrap's cluster). */
export const outcomeBattles = (outcomes: MatchOutcome[]): ClusteredBattle[] =>
  outcomes
    .filter((o) => o.outcome !== 'error')
    .map((o) => ({ a: o.model1, b: o.model2, score: scoreOf(o.outcome), cluster: o.questionId }));

/** An answer's length in characters at a turn, undefined when the answer is not stored. */
export type Lengths = (model: string, questionId: number, turn: number) => number | undefined;

/** The lengths of every stored answer: the tournament's and those of the labelled `sets` named. */
export async function answerLengths(store: Store, sets: readonly { set: string }[] = []): Promise<Lengths> {
  const lengths = new Map<string, number[]>();
  const add = (answers: Answer[]) => {
    for (const a of answers)
      lengths.set(
        `${a.model}\u0000${a.questionId}`,
        a.turns.map((t) => t.length),
      );
  };
  add(await store.catalog.answers());
  for (const s of sets) add(await store.catalog.answers([OUTPUT_1, OUTPUT_2], { set: s.set }));
  return (model, q, turn) => lengths.get(`${model}\u0000${q}`)?.[turn - 1];
}

export interface StandingsQuery {
  judge: string;
  mode: 'pairwise-all' | 'pairwise-baseline' | 'single';
  baseline?: string;
  turn?: number;
  category?: string;
  models?: string[];
}

export async function questionFilter(store: Store, category?: string): Promise<Set<number> | undefined> {
  if (!category) return undefined;
  return new Set((await store.catalog.questions()).filter((q) => q.category === category).map((q) => q.id));
}

export async function standings(store: Store, q: StandingsQuery): Promise<Standing[]> {
  return (await standingGroups(store, q)).flatMap((g) => g.rows);
}

/** Standings per connected group of models: tournaments that never met are never ranked in one table. */
export async function standingGroups(store: Store, q: StandingsQuery) {
  const { outcomes } = await judgeData(store, q.judge);
  const questionIds = await questionFilter(store, q.category);
  const groups = connectedModelGroups(outcomes);
  return splitByGroup(outcomes, groups)
    .map((items, k) => ({
      models: groups[k]!,
      questions: new Set(items.map((o) => o.questionId)).size,
      rows: pairwiseStandings(items, standingsFilter(q, questionIds)),
    }))
    .filter((g) => g.rows.length);
}

/** What a standings query keeps, as the standings functions take it (plain and weighted alike). */
export function standingsFilter(q: StandingsQuery, questionIds: Set<number> | undefined) {
  return {
    ...(q.mode === 'pairwise-baseline' ? { baseline: q.baseline ?? DEFAULT_BASELINE } : {}),
    ...(q.turn !== undefined ? { turn: q.turn } : {}),
    ...(q.models ? { models: q.models } : {}),
    ...(questionIds ? { questionIds } : {}),
  };
}

/** A judge's single-grading scores: the latest game per (question, turn, model). */
function singleScores(games: GameFacts[]): SingleScore[] {
  const latest = new Map<string, GameFacts>();
  for (const g of games) latest.set(`${g.match.questionId}\u0000${g.match.turn}\u0000${g.match.model1}`, g);
  return [...latest.values()].map((g) => ({
    questionId: g.match.questionId,
    turn: g.match.turn,
    model: g.match.model1,
    score: ratingOf(g.verdict),
  }));
}

export async function singleResults(
  store: Store,
  q: Omit<StandingsQuery, 'mode'>,
): Promise<SingleStanding[]> {
  const questionIds = await questionFilter(store, q.category);
  let scores = singleScores(await store.games.facts({ judge: q.judge, kind: 'single' }));
  if (q.turn !== undefined) scores = scores.filter((s) => s.turn === q.turn);
  return singleStandings(scores, {
    ...(q.models ? { models: q.models } : {}),
    ...(questionIds ? { questionIds } : {}),
  });
}

export async function agreementBetween(
  store: Store,
  judge1: string,
  judge2: string,
): Promise<AgreementRow[]> {
  const a = await judgeData(store, judge1);
  return agreement(a.votes, judge1 === judge2 ? 'same' : (await judgeData(store, judge2)).votes);
}

/** A rating row: `rating` is null (with a `note`) for a model no finite Bradley–Terry rating fits; `group` names the group of models that played one another when there are several (1 = the largest). */
export interface RatingRow {
  model: string;
  rating: number | null;
  note?: string;
  group?: number;
}

/** How a match whose two orders disagree enters the ratings: as a tie (ours) or not at all (FastChat's MLE). */
export const INCONSISTENT_AS = ['tie', 'drop'] as const;
export type InconsistentAs = (typeof INCONSISTENT_AS)[number];

/** The judge's data without its inconsistent matches and votes when they are to be dropped. */
function withoutInconsistent(d: JudgeData, as: InconsistentAs): JudgeData {
  if (as === 'tie') return d;
  return {
    ...d,
    outcomes: d.outcomes.filter((o) => o.outcome !== 'inconsistent'),
    votes: d.votes.filter((v) => v.winner !== 'inconsistent'),
  };
}

/**
 * Bradley–Terry (`prior`: tie pseudo-games per pair that met) or online Elo, per group of models that met. A model
 * that won or lost every game has no finite rating (null, a note); ratings are centred (mean 1000) on the models
 * seen on at least MIN_QUESTIONS questions, so a sparse model's noise does not shift the others.
 */
export async function ratings(
  store: Store,
  judge: string,
  method: 'bt' | 'elo',
  opts: { turn?: number; prior?: number; inconsistent?: InconsistentAs } = {},
): Promise<RatingRow[]> {
  const d = withoutInconsistent(await judgeData(store, judge), opts.inconsistent ?? 'tie');
  const fitGroup = (part: ClusteredBattle[]): RatingRow[] => {
    if (method === 'elo') return onlineElo(part);
    const t = battleTable(part);
    const fit = fitEstimable(
      t.pairs,
      opts.prior ?? 0,
      questionsPerModel(t).map((q) => q >= MIN_QUESTIONS),
    );
    const recs = tableRecords(t);
    const rows: (RatingRow & { v: number })[] = t.pairs.models.map((model, k) => {
      const st = fit.status[k]!;
      return st === 'ok'
        ? { model, rating: fit.ratings[k]!, v: fit.ratings[k]! }
        : {
            model,
            rating: null,
            note: separationNote(st, recs[k]!),
            v: st === 'above' ? Infinity : -Infinity,
          };
    });
    return rows.sort((a, b) => b.v - a.v || (a.model < b.model ? -1 : 1)).map(({ v: _v, ...r }) => r);
  };
  return ratingsByGroup(judgeBattles(d, judge, opts.turn), battleSides, fitGroup, (rows) => rows).rows;
}
