// Bench: how many judge calls `arena run --until-settled` needs, as a share of the full pairwise-all plan, on
// simulated leagues: latent strengths, per-question effects, and a noisy judge that prefers position A. Every
// match's outcome is drawn once (a judge at temperature 0), so the settled run and the full plan see the same
// games. The scheduler is the one the command uses (src/core/stats/settle.ts), played without a database.
//
//   node --import tsx bench/fewer-calls.ts [--seeds 3] [--questions 80] [--round-share 0.1] [--six] [--coverage N]
//
// Per league and seed: calls as a share of the full plan; whether the settled run's rank intervals are no wider
// in total than the full plan's and each lies inside the full plan's; the same for a uniform sample of the same
// size (every match kept with equal chance); and whether each run's rank intervals hold every model's true rank.
import type { ClusteredBattle } from '../src/core/stats/battle-table.ts';
import { normal, seededRng } from '../src/core/stats/random.ts';
import { fitRanks, nextRound, type SettleMatch } from '../src/core/stats/settle.ts';

const arg = (name: string, def: number) => {
  const k = process.argv.indexOf(`--${name}`);
  return k < 0 ? def : Number(process.argv[k + 1]);
};
const SEEDS = arg('seeds', 3);
const QUESTIONS = arg('questions', 80);
const TURNS = 2;
/** matches per round as a share of the plan (the command's default: a tenth) */
const ROUND_SHARE = arg('round-share', 0.1);
const LEAGUES = process.argv.includes('--six') ? [6] : [6, 20];
/** with --coverage N: N more seeds of the 6-model league, counting runs whose rank ranges hold every true rank */
const COVERAGE = arg('coverage', 0);
/** logit spread of the latent strengths, sd of a model's per-question effect, the judge's pull towards A */
const SPREAD = 1.0;
const QUESTION_SD = 0.7;
const POSITION_BIAS = 0.5;
const LEVEL = 0.95;

type Ranks = { model: string; best: number; worst: number }[];

interface League {
  models: string[];
  theta: number[];
  matches: SettleMatch[];
  outcome: Map<string, ClusteredBattle>;
}

/** One game's verdict from position A's side: 1 A, 0 B, 0.5 a tie. */
function game(rng: () => number, d: number): 1 | 0 | 0.5 {
  const p = 1 / (1 + Math.exp(-(d + POSITION_BIAS)));
  const tie = 0.15;
  const u = rng();
  return u < tie ? 0.5 : u < tie + (1 - tie) * p ? 1 : 0;
}

function league(n: number, seed: number): League {
  const rng = seededRng(seed);
  const models = Array.from({ length: n }, (_, k) => `m${String(k).padStart(2, '0')}`);
  const theta = models.map(() => SPREAD * normal(rng));
  const matches: SettleMatch[] = [];
  const outcome = new Map<string, ClusteredBattle>();
  for (let q = 0; q < QUESTIONS; q++) {
    const effect = models.map(() => QUESTION_SD * normal(rng));
    for (let t = 1; t <= TURNS; t++)
      for (let a = 0; a < n; a++)
        for (let b = a + 1; b < n; b++) {
          const key = `${q}:${t}:${a}:${b}`;
          const d = theta[a]! + effect[a]! - theta[b]! - effect[b]!;
          const ab = game(rng, d); // model a shown first
          const ba = 1 - game(rng, -d); // model b shown first, read from a's side
          // the engine's rule: equal verdicts stand, disagreeing ones are a tie
          const score = ab === ba ? ab : 0.5;
          matches.push({ key, a: models[a]!, b: models[b]!, cluster: q });
          outcome.set(key, { a: models[a]!, b: models[b]!, score: score as 1 | 0 | 0.5, cluster: q });
        }
  }
  return { models, theta, matches, outcome };
}

function settledRun(l: League): { played: Set<string>; ranks: Ranks | undefined; stop: string } {
  const played = new Set<string>();
  const round = Math.max(10, Math.ceil(l.matches.length * ROUND_SHARE));
  for (;;) {
    const battles = [...played].map((k) => l.outcome.get(k)!);
    const step = nextRound({ models: l.models, matches: l.matches, played, battles, round, level: LEVEL });
    if (step.stop) return { played, ranks: step.ranks, stop: step.stop };
    for (const k of step.next) played.add(k);
  }
}

function ranksOf(l: League, keys: Iterable<string>): Ranks | undefined {
  return fitRanks(
    l.models,
    [...keys].map((k) => l.outcome.get(k)!),
    LEVEL,
  )?.ranks;
}

const width = (r: Ranks) => r.reduce((s, x) => s + x.worst - x.best, 0);
const inside = (r: Ranks, full: Ranks) =>
  r.every((x, k) => x.best >= full[k]!.best && x.worst <= full[k]!.worst);
/** every model's true rank (by its latent strength) within its interval */
function covers(l: League, r: Ranks): boolean {
  const order = l.theta.map((t, k) => [t, k] as const).sort((a, b) => b[0] - a[0]);
  const rank = new Map(order.map(([, k], i) => [l.models[k]!, i + 1]));
  return r.every((x) => rank.get(x.model)! >= x.best && rank.get(x.model)! <= x.worst);
}

for (const n of LEAGUES) {
  const rows: Record<string, string | number>[] = [];
  for (let seed = 1; seed <= SEEDS; seed++) {
    const l = league(n, seed);
    const full = ranksOf(
      l,
      l.matches.map((m) => m.key),
    )!;
    const t0 = performance.now();
    const s = settledRun(l);
    const ms = performance.now() - t0;
    const settled = s.ranks ?? ranksOf(l, s.played)!;
    // a uniform sample of the same number of matches
    const rng = seededRng(1000 + seed);
    const shuffled = l.matches.map((m) => m.key).sort(() => rng() - 0.5);
    const uniform = ranksOf(l, shuffled.slice(0, s.played.size));
    rows.push({
      seed,
      stop: s.stop,
      'calls / full': `${((100 * s.played.size) / l.matches.length).toFixed(1)}%`,
      'width full': width(full),
      'width settled': width(settled),
      'settled inside full': inside(settled, full) ? 'yes' : 'no',
      'width uniform': uniform ? width(uniform) : 'no fit',
      'uniform inside full': uniform && inside(uniform, full) ? 'yes' : 'no',
      'true ranks covered (full/settled)': `${covers(l, full) ? 'yes' : 'no'}/${covers(l, settled) ? 'yes' : 'no'}`,
      'scheduler ms': Math.round(ms),
    });
  }
  if (!rows.length) continue;
  console.log(
    `\n${n} models, ${QUESTIONS} questions × ${TURNS} turns: ${(n * (n - 1) * QUESTIONS * TURNS) / 2} matches, ${n * (n - 1) * QUESTIONS * TURNS} calls in the full plan`,
  );
  console.table(rows);
}

if (COVERAGE) {
  // simultaneous 95% intervals of the differences hold all together in >= 95% of runs when they are valid, and then
  // every true rank lies in its range: the share of runs where that holds is a lower bound on their coverage
  let full = 0;
  let settled = 0;
  let share = 0;
  for (let seed = 101; seed < 101 + COVERAGE; seed++) {
    const l = league(6, seed);
    if (
      covers(
        l,
        ranksOf(
          l,
          l.matches.map((m) => m.key),
        )!,
      )
    )
      full++;
    const s = settledRun(l);
    if (covers(l, s.ranks ?? ranksOf(l, s.played)!)) settled++;
    share += s.played.size / l.matches.length / COVERAGE;
  }
  console.log(
    `\ncoverage over ${COVERAGE} leagues of 6 models: every true rank inside its range in ${((100 * full) / COVERAGE).toFixed(1)}% of full plans, ${((100 * settled) / COVERAGE).toFixed(1)}% of settled runs (which took ${(100 * share).toFixed(0)}% of the calls on average)`,
  );
}
