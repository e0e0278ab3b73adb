// Random small leagues for tests/core/stats/small-leagues.test.ts, fitted in a worker thread (tests/support/bounded.ts).
import { connectedModelGroups } from '../../../src/core/groups.ts';
import { fitPositionBT, fitRaoKupper } from '../../../src/core/stats/bt-variants.ts';
import { normal, randInt, seededRng, type Rng } from '../../../src/core/stats/random.ts';
import type { MatchGame, Verdict } from '../../../src/core/types.ts';

export interface SmallFit {
  league: number;
  fit: 'rao-kupper' | 'position';
  groups: number;
  converged: boolean;
  /** every rating, the log-likelihood and the fit's own term are finite numbers */
  finite: boolean;
  /** the mean rating of each group of models that met */
  groupMeans: number[];
}

/** 1 to 12 games among 2 to 5 models, one kind of verdict often missing (no ties, no losses: separable data). */
function scattered(rng: Rng): MatchGame[] {
  const models = Array.from({ length: 2 + randInt(rng, 4) }, (_, k) => `m${k}`);
  const allowed = (['model_1', 'model_2', 'tie', 'error'] as Verdict[]).filter(() => rng() < 0.6);
  if (!allowed.length) allowed.push('model_1');
  return Array.from({ length: 1 + randInt(rng, 12) }, (_, k) => {
    const i = randInt(rng, models.length);
    const j = (i + 1 + randInt(rng, models.length - 1)) % models.length;
    const verdict = allowed[randInt(rng, allowed.length)]!;
    return {
      questionId: k,
      turn: 1,
      model1: models[i]!,
      model2: models[j]!,
      order: rng() < 0.5 ? 'AB' : 'BA',
      verdict,
    };
  });
}

/** Two tournaments that never met (2-5 and 2-4 models, round robins on 5-30 questions), as one database can hold. */
function twoTournaments(rng: Rng): MatchGame[] {
  const sizes = [2 + randInt(rng, 4), 2 + randInt(rng, 3)];
  const tieP = rng() < 0.5 ? 0 : 0.2;
  const games: MatchGame[] = [];
  sizes.forEach((size, t) => {
    const strength = Array.from({ length: size }, () => normal(rng));
    for (let q = 0, n = 5 + randInt(rng, 26); q < n; q++)
      for (let i = 0; i < size; i++)
        for (let j = i + 1; j < size; j++) {
          const win = rng() < 1 / (1 + Math.exp(strength[j]! - strength[i]!));
          const verdict: Verdict = rng() < tieP ? 'tie' : win ? 'model_1' : 'model_2';
          games.push({
            questionId: q,
            turn: 1,
            model1: `t${t}m${i}`,
            model2: `t${t}m${j}`,
            order: 'AB',
            verdict,
          });
        }
  });
  return games;
}

/** `n` leagues, half scattered and half two tournaments, each fitted by both variants. */
export function fitSmallLeagues(seed: number, n: number): SmallFit[] {
  const rng = seededRng(seed);
  const out: SmallFit[] = [];
  const score = { model_1: 1, model_2: 0, tie: 0.5 } as const;
  for (let league = 0; league < n; league++) {
    const games = (league % 2 ? twoTournaments : scattered)(rng).filter((g) => g.verdict !== 'error');
    if (!games.length) continue;
    const groups = connectedModelGroups(games);
    const summary = (
      fit: SmallFit['fit'],
      f: { models: string[]; ratings: number[] },
      converged: boolean,
      rest: number[],
    ) => {
      const of = new Map(f.models.map((m, k) => [m, f.ratings[k]!]));
      out.push({
        league,
        fit,
        groups: groups.length,
        converged,
        finite: [...f.ratings, ...rest].every(Number.isFinite),
        groupMeans: groups.map((g) => g.reduce((a, m) => a + of.get(m)!, 0) / g.length),
      });
    };
    const rk = fitRaoKupper(
      games.map((g) => ({ a: g.model1, b: g.model2, score: score[g.verdict as keyof typeof score] })),
    );
    summary('rao-kupper', rk, rk.converged, [rk.logLik, rk.theta]);
    const pos = fitPositionBT(games);
    summary('position', pos, pos.converged, [pos.logLik, pos.position]);
  }
  return out;
}
