// `arena judges succession --from OLD --to NEW`: the new judge plays a bridge of the old judge's matches, in rounds
// (the rounds of --until-settled, engine/settle.ts), until every figure of the bridge is within the stated precision
// or the bridge has its --max-calls. The bridge's order is fixed by the seed (stratified by model pair and category:
// one match of each stratum in turn, each stratum's in a seeded shuffle), so a rerun resumes it and pays nothing
// twice. Every game keeps its id: a later full run of the new judge pays only what the bridge did not play.
import { itemKey } from '../core/outcomes.ts';
import { seededRng } from '../core/stats/random.ts';
import { bridgeOf, halfWidth, successionFigures, type SuccessionFigures } from '../core/stats/succession.ts';
import type { SettleMatch } from '../core/stats/settle.ts';
import { ArenaError, type MatchOutcome } from '../core/types.ts';
import { judgeData } from '../reports/results.ts';
import { planRun, type RunOptions } from './run.ts';
import { playRounds, type Decision, type SettleSummary } from './settle.ts';
import { planMatches } from './settle-state.ts';

export interface SuccessionOptions extends RunOptions {
  /** the old judge (its games or recorded verdicts); `judge` is the new one */
  from: string;
  /** stop once agreement's and kappa's intervals are each at most this far from their estimate (half-width) */
  precision: number;
  /** ... and every model's rating difference (Elo points) */
  ratingPrecision: number;
  /** the bridge's games at most (both orders of a match are two; default a quarter of a full replay, a bridge of at
   * most 25% of the old judge's matches) */
  maxCalls?: number;
  /** matches per round (default: a twentieth of the candidates, at least 60) */
  round?: number;
  seed?: number;
  onRound?(r: { round: number; matches: number; bridge: number; candidates: number }): void;
}

export interface SuccessionRun extends SettleSummary {
  /** the old judge's matches the new judge's plan holds (a verdict, not an error), and those on the bridge now */
  candidates: number;
  bridge: number;
  figures: SuccessionFigures | undefined;
}

/** Does the bridge estimate every figure within the precision asked? */
function precise(f: SuccessionFigures, o: Pick<SuccessionOptions, 'precision' | 'ratingPrecision'>) {
  return (
    halfWidth(f.agreement) <= o.precision &&
    halfWidth(f.kappa) <= o.precision &&
    f.ratings.every((r) => halfWidth(r.difference) <= o.ratingPrecision)
  );
}

/** The bridge order: strata (sorted pair, category) taken in turn, each one's matches in a seeded shuffle. */
function bridgeOrder(candidates: SettleMatch[], categoryOf: Map<number, string>, seed: number): string[] {
  const rng = seededRng(seed);
  const strata = new Map<string, string[]>();
  for (const m of candidates) {
    const s = `${[m.a, m.b].sort().join('\u0000')}\u0000${categoryOf.get(m.cluster) ?? ''}`;
    strata.set(s, [...(strata.get(s) ?? []), m.key]);
  }
  const lists = [...strata.keys()].sort().map((s) => {
    const l = strata.get(s)!;
    for (let i = l.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [l[i], l[j]] = [l[j]!, l[i]!];
    }
    return l;
  });
  const out: string[] = [];
  for (let p = 0; out.length < candidates.length; p++)
    for (const l of lists) if (p < l.length) out.push(l[p]!);
  return out;
}

/** Play the bridge of `from`'s matches with `judge` until it is precise enough or at `maxCalls`. */
export async function runSuccession(o: SuccessionOptions): Promise<SuccessionRun> {
  if (o.mode !== 'pairwise-all') throw new ArenaError('a succession bridge plays pairwise-all matches');
  if (o.from === o.judge.id) throw new ArenaError(`--from and --to name the same judge "${o.from}"`);
  const old: MatchOutcome[] = (await judgeData(o.store, o.from)).outcomes.filter(
    (x) => x.outcome !== 'error',
  );
  if (!old.length) throw new ArenaError(`no verdicts of "${o.from}" to bridge from (see \`arena judges\`)`);
  const oldItems = new Set(old.map((x) => itemKey(x.questionId, x.turn, x.model1, x.model2)));
  const { games } = await planRun(o);
  const { matches, gameIds } = planMatches(games);
  const turnOf = (key: string) => Number(key.split('\u0000')[1]);
  const candidates = [...matches.values()].filter((m) =>
    oldItems.has(itemKey(m.cluster, turnOf(m.key), m.a, m.b)),
  );
  if (!candidates.length)
    throw new ArenaError(`the plan of "${o.judge.id}" holds none of the matches "${o.from}" judged`);
  const categoryOf = new Map((await o.store.catalog.questions()).map((q) => [q.id, q.category]));
  const order = bridgeOrder(candidates, categoryOf, o.seed ?? 1);
  const maxCalls = o.maxCalls ?? Math.floor(old.length / 2);
  const round = o.round ?? Math.max(60, Math.ceil(candidates.length / 20));
  let figures: SuccessionFigures | undefined;
  let bridge = 0;
  let rounds = 0;
  const schedule = (played: ReadonlySet<string>, outcomes: MatchOutcome[]): Decision => {
    bridge = order.filter((k) => played.has(k)).length;
    const b = bridgeOf(old, outcomes);
    figures = b.length ? successionFigures(b, { seed: o.seed ?? 1 }) : undefined;
    const done = (stop: Decision['stop']): Decision => ({ next: [], stop, open: 0, report: { open: [] } });
    if (figures && precise(figures, o)) return done('precise');
    const left = Math.floor((maxCalls - 2 * bridge) / 2);
    if (left <= 0) return done('max-calls');
    const next = order.filter((k) => !played.has(k)).slice(0, Math.min(round, left));
    if (!next.length) return done('exhausted');
    o.onRound?.({ round: ++rounds, matches: next.length, bridge, candidates: candidates.length });
    return { next, open: 1, report: { open: [] } };
  };
  const { onRound: _own, ...rest } = o;
  const summary = await playRounds(rest, games, [...matches.values()], gameIds, schedule);
  return { ...summary, candidates: candidates.length, bridge, figures };
}
