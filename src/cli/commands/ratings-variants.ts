// The Bradley–Terry variants of `arena ratings`: --ties rao-kupper and --position.
import * as figures from '../../core/format.ts';
import { ratingsTable, UsageError } from '../format.ts';
import { print, printJson, withJudge } from '../shared.ts';

export const TIES = ['half', 'rao-kupper'] as const;

export async function printRatingVariant(
  args: { db: string; judge?: string | undefined; turn?: string | undefined },
  o: { ties: (typeof TIES)[number]; position: boolean; json: boolean },
): Promise<void> {
  if (o.ties !== 'half' && o.position)
    throw new UsageError('--ties rao-kupper and --position are separate fits: give one of them');
  await withJudge(args, async (store, judge, { turn }) => {
    const { positionReport, raoKupperReport } = await import('../../reports/bt-variants.ts');
    const r = o.position
      ? await positionReport(store, judge, turn)
      : await raoKupperReport(store, judge, turn);
    if (!r)
      throw new UsageError(
        `--position needs ${judge}'s games, each in its order; it has none (recorded match outcomes and votes carry no order)`,
      );
    if (o.json) return printJson(r);
    const rows = r.models.map((model, k) => ({ group: r.group?.[k], model, rating: r.ratings[k]! }));
    rows.sort(
      (a, b) => (a.group ?? 0) - (b.group ?? 0) || b.rating - a.rating || (a.model < b.model ? -1 : 1),
    );
    print(ratingsTable(rows));
    const fit = `log-likelihood ${r.logLik.toFixed(2)}${r.converged ? '' : `; did not converge in ${r.iterations} iterations`}`;
    if (r.variant === 'rao-kupper')
      print(
        `\nRao–Kupper ties over ${r.battles} battles: θ = ${r.theta.toFixed(3)}, so two equal models tie ${figures.pct(r.tieAtEqual)} of the time (${fit})`,
      );
    else
      print(
        `\nposition term over ${r.games} games, each in its own order: being shown first is worth ${r.position.toFixed(1)} rating points (SE ${r.se.toFixed(1)} clustered by question over ${r.questions} questions; ${r.seIndependent.toFixed(1)} if games were independent), so the first of two equal answers wins ${figures.pct(r.firstAtEqual)} of the time, ties half (${fit})`,
      );
  });
}
