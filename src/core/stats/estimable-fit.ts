// The full-data Bradley–Terry fit over the models that have a finite rating (stats/separation.ts), the
// connected groups of the comparison graph, and why a separated model has no rating.
import { fitBradleyTerry, INIT, type CollapsedBattles } from '../ratings.ts';
import { estimability, withPrior, type Estimability } from './separation.ts';
import { connectedModelGroups } from '../groups.ts';

/** The connected groups of the comparison graph (models linked by at least one battle; one that met no one alone). */
export function comparisonGroups(c: CollapsedBattles): string[][] {
  const alone = c.models.map((m) => ({ model1: m, model2: m }));
  const met = Array.from(c.i, (i, k) => ({ model1: c.models[i]!, model2: c.models[c.j[k]!]!, w: c.w[k]! }));
  return connectedModelGroups([...alone, ...met.filter((m) => m.w > 0)]);
}

/** The full-data fit with separated models handled: their entries are +Infinity (above the rest), -Infinity (below) or NaN. */
export interface EstimableFit {
  ratings: Float64Array;
  status: Estimability[];
  /** the fit used to warm-start bootstrap rounds: finite everywhere (non-estimable models at INIT) */
  init: Float64Array;
  /** pair totals with the prior added and pairs touching a non-estimable model zeroed */
  pairs: CollapsedBattles;
}

/**
 * Bradley–Terry maximum likelihood on the models that are estimable (stats/separation.ts), centred so that
 * their mean is 1000; `prior` tie pseudo-games are added to every pair that met first.
 */
export function fitEstimable(c0: CollapsedBattles, prior = 0, anchor?: ArrayLike<boolean>): EstimableFit {
  const c = withPrior(c0, prior);
  const { status, separated } = estimability(c);
  const pairs = separated ? restrict(c, status) : c;
  const r = fitBradleyTerry(pairs);
  // every estimable model moves; the mean is taken over the anchored ones
  if (separated || anchor) recentre(r, status, () => INIT, anchorStatus(status, anchor));
  const init = Float64Array.from(r, (x, k) => (status[k] === 'ok' ? x : INIT));
  const ratings = Float64Array.from(r, (x, k) => ratingValue(status[k]!, x));
  return { ratings, status, init, pairs };
}

/** A fitted rating as stored: finite when estimable, else +Infinity (above), -Infinity (below) or NaN. */
export function ratingValue(st: Estimability, x: number): number {
  return st === 'ok' ? x : st === 'above' ? Infinity : st === 'below' ? -Infinity : NaN;
}

/** The pair totals with every pair that touches a model not 'ok' zeroed. */
export function restrict(c: CollapsedBattles, status: Estimability[]): CollapsedBattles {
  const ok = (k: number) => status[c.i[k]!] === 'ok' && status[c.j[k]!] === 'ok';
  return { ...c, w: c.w.map((w, k) => (ok(k) ? w : 0)), s: c.s.map((s, k) => (ok(k) ? s : 0)) };
}

/** The models the ratings are centred on: estimable ones, and of those the anchored ones when any is. */
function anchorStatus(status: Estimability[], anchor?: ArrayLike<boolean>): boolean[] {
  const ok = status.map((st) => st === 'ok');
  if (!anchor) return ok;
  const both = ok.map((x, k) => x && Boolean(anchor[k]));
  return both.some(Boolean) ? both : ok;
}

/**
 * Shift the 'ok' entries so that the mean over the centring set (`centre`: default the 'ok' ones) equals
 * the mean of `target` over the same models.
 */
export function recentre(
  r: Float64Array,
  status: Estimability[] | boolean[],
  target: (k: number) => number,
  centre?: boolean[],
): void {
  const isOk = (k: number) => (typeof status[k] === 'boolean' ? (status[k] as boolean) : status[k] === 'ok');
  const inCentre = (k: number) => isOk(k) && (centre ? centre[k]! : true);
  let mean = 0;
  let want = 0;
  let n = 0;
  for (let k = 0; k < r.length; k++) {
    if (!inCentre(k)) continue;
    mean += r[k]!;
    want += target(k);
    n++;
  }
  if (!n) return;
  const shift = (want - mean) / n;
  for (let k = 0; k < r.length; k++) if (isOk(k)) r[k]! += shift;
}

/** Why a model has no finite rating, e.g. "not estimable: 10 wins, 0 losses". */
export function separationNote(
  st: Estimability,
  rec: { wins: number; losses: number; ties: number },
): string {
  const record = `${rec.wins} wins, ${rec.losses} losses${rec.ties ? `, ${rec.ties} ties` : ''}`;
  const why =
    st === 'above'
      ? 'it never lost to the other models, so no finite rating fits; --prior gives one'
      : st === 'below'
        ? 'it never beat or tied the other models, so no finite rating fits; --prior gives one'
        : 'it cannot be placed against the main group of models';
  return `not estimable: ${record} (${why})`;
}
