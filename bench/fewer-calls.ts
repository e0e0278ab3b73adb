// Bench: how many judge calls `arena run --until-settled` needs, as a share of the full pairwise-all plan, on
// simulated leagues (tests/support/league-sim.ts: latent strengths, per-question effects, a noisy judge that
// prefers position A and ties some games). The scheduler is the one the command uses (src/core/stats/settle.ts),
// played without a database. The study's six models on their recorded replies: bench/fewer-calls-study.ts.
//
//   node --import tsx bench/fewer-calls.ts [--seeds 3] [--questions 80] [--round-share 0.1] [--six | --twenty]
//     [--no-oracle: skip the two hindsight columns]
//     [--spread 1]   # sd of the latent strengths in logits (2: the study's six's fitted spread, see bench/README.md)
//   node --import tsx bench/fewer-calls.ts --coverage 100 [--models 6] [--first 0]  # honest intervals after adaptive runs
//     (--first: the first replicate's number, to add replicates to an earlier run's)
//
// Per league and seed: calls as a share of the full plan; whether the settled run's rank intervals are no wider
// in total than the full plan's and each lies inside the full plan's; the same for a uniform sample of the same
// size; whether each run's rank intervals hold every model's true rank; and, in hindsight, the share the best
// neighbour design needed (every match of pairs within k places in the full plan's order, plus 5% of the rest);
// and the least design (core/stats/settle-bound.ts): the fewest matches that separate, at the full plan's
// estimates, every pair the full plan separates, a lower bound for any scheduler.
import { seededRng } from '../src/core/stats/random.ts';
import { rankCertaintyBound } from '../src/core/stats/settle-bound.ts';
import {
  coversRanks,
  fitOf,
  inside,
  intervalCoverage,
  league,
  populationRatings,
  settledRun,
  width,
  type League,
  type Ranks,
} from '../tests/support/league-sim.ts';

const arg = (name: string, def: number) => {
  const k = process.argv.indexOf(`--${name}`);
  return k < 0 ? def : Number(process.argv[k + 1]);
};
const SEEDS = arg('seeds', 3);
const QUESTIONS = arg('questions', 80);
const ROUND_SHARE = arg('round-share', 0.1);
const COVERAGE = arg('coverage', 0);
const SPREAD = arg('spread', 1);
const NO_ORACLE = process.argv.includes('--no-oracle');

/** A uniform sample of `size` of the league's matches. */
function uniform(l: League, size: number, seed: number): string[] {
  const rng = seededRng(seed);
  return l.matches
    .map((m) => m.key)
    .sort(() => rng() - 0.5)
    .slice(0, size);
}

/** The smallest neighbour design (k = 1, 2, ...) that reaches the full plan's certainty: its share, or undefined. */
function oracle(l: League, full: Ranks, ratings: Float64Array): number | undefined {
  const order = [...ratings].map((r, k) => [r, k] as const).sort((a, b) => b[0] - a[0]);
  const place = new Map(order.map(([, k], i) => [l.models[k]!, i]));
  for (let k = 1; k < l.models.length; k++) {
    const rng = seededRng(99);
    const keys = l.matches
      .filter((m) => Math.abs(place.get(m.a)! - place.get(m.b)!) <= k || rng() < 0.05)
      .map((m) => m.key);
    const r = fitOf(l, keys)?.ranks;
    if (r && inside(r, full) && width(r) <= width(full)) return keys.length / l.matches.length;
  }
  return undefined;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

if (!COVERAGE)
  for (const n of process.argv.includes('--six') ? [6] : process.argv.includes('--twenty') ? [20] : [6, 20]) {
    const rows: Record<string, string | number>[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const l = league(n, seed, { questions: QUESTIONS, spread: SPREAD });
      const fullFit = fitOf(
        l,
        l.matches.map((m) => m.key),
      )!;
      const full = fullFit.ranks;
      const t0 = performance.now();
      const s = settledRun(l, ROUND_SHARE);
      const ms = performance.now() - t0;
      const settled = s.ranks ?? fitOf(l, s.played)!.ranks;
      const u = fitOf(l, uniform(l, s.played.size, 1000 + seed))?.ranks;
      const best = NO_ORACLE ? undefined : oracle(l, full, fullFit.ratings);
      const bound = NO_ORACLE
        ? undefined
        : rankCertaintyBound(l.models, l.matches, [...l.outcome.values()], 0.95);
      rows.push({
        seed,
        stop: s.stop,
        'calls / full': pct(s.played.size / l.matches.length),
        'width full': width(full),
        'width settled': width(settled),
        'settled reaches full': inside(settled, full) && width(settled) <= width(full) ? 'yes' : 'no',
        'width uniform': u ? width(u) : 'no fit',
        'uniform reaches full': u && inside(u, full) && width(u) <= width(full) ? 'yes' : 'no',
        'best neighbour design': best === undefined ? 'none' : pct(best),
        'least design (bound)': bound
          ? `${pct(bound.share)} (${pct(bound.informationShare)} of information)`
          : '-',
        'true ranks covered (full/settled)': `${coversRanks(l, full) ? 'yes' : 'no'}/${coversRanks(l, settled) ? 'yes' : 'no'}`,
        'scheduler ms': Math.round(ms),
      });
    }
    console.log(
      `\n${n} models, ${QUESTIONS} questions × 2 turns: ${(n * (n - 1) * QUESTIONS * 2) / 2} matches, ${n * (n - 1) * QUESTIONS * 2} calls in the full plan`,
    );
    console.table(rows);
  }

if (COVERAGE) {
  // fixed strengths, evenly spaced over ±1.5 logits; each replicate draws new questions and verdicts
  const n = arg('models', 6);
  const theta = Array.from({ length: n }, (_, k) => 1.5 * ((2 * k) / (n - 1) - 1));
  const truth = populationRatings(theta, { questions: QUESTIONS });
  const sum = { share: 0, aM: 0, aS: 0, aW: 0, aR: 0, uM: 0, uS: 0, uW: 0, uR: 0 };
  const first = arg('first', 0);
  for (let r = first; r < first + COVERAGE; r++) {
    const l = league(n, 500 + r, { questions: QUESTIONS }, theta);
    const s = settledRun(l, ROUND_SHARE);
    const a = intervalCoverage(l, s.played, truth)!;
    const u = intervalCoverage(l, uniform(l, s.played.size, 900 + r), truth)!;
    sum.share += s.played.size / l.matches.length;
    sum.aM += a.marginal;
    sum.aS += Number(a.simultaneous);
    sum.aW += a.width;
    sum.aR += Number(a.ranksCovered);
    sum.uM += u.marginal;
    sum.uS += Number(u.simultaneous);
    sum.uW += u.width;
    sum.uR += Number(u.ranksCovered);
    // one line per replicate, so that a run cut short still counts
    console.log(
      `replicate ${r}: share ${pct(s.played.size / l.matches.length)}, adaptive ${pct(a.marginal)} ${a.simultaneous ? 'all' : 'not all'}, uniform ${pct(u.marginal)} ${u.simultaneous ? 'all' : 'not all'}`,
    );
  }
  const m = (x: number) => x / COVERAGE;
  console.log(
    `\ncoverage over ${COVERAGE} replicates of a ${n}-model league (settled runs took ${pct(m(sum.share))} of the calls):`,
  );
  console.table([
    {
      design: 'adaptive (settled run)',
      '95% difference intervals covering': pct(m(sum.aM)),
      'simultaneous, all pairs': pct(m(sum.aS)),
      'true ranks in range': pct(m(sum.aR)),
      'rank width': m(sum.aW).toFixed(2),
    },
    {
      design: 'uniform, same calls',
      '95% difference intervals covering': pct(m(sum.uM)),
      'simultaneous, all pairs': pct(m(sum.uS)),
      'true ranks in range': pct(m(sum.uR)),
      'rank width': m(sum.uW).toFixed(2),
    },
  ]);
}
