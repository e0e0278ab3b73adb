// The succession report as text: the bridge, the figures with their intervals, the ratings side by side.
import { agreementTable, table, withInterval } from '../format.ts';
import { print, printTable } from '../shared.ts';
import type { Figure } from '../../core/stats/succession.ts';
import type { SuccessionReport } from '../../reports/succession.ts';

const WHY: Record<string, string> = {
  precise: 'every figure is within the stated precision',
  'max-calls': 'the bridge reached --max-calls',
  exhausted: 'every match of the old judge is on the bridge',
  interrupted: 'interrupted: rerun the same command to resume (nothing stored is paid again)',
  failed: 'some games failed (no verdict stored); rerun the same command to retry them',
  budget: 'stopped at the budget',
};

/** An estimate with its interval, `digits` decimals (`scale`: 100 for percentages). */
function shown(f: Figure, digits = 3, scale = 1): string {
  const x = (v: number) => (v * scale).toFixed(digits);
  return f.value === null ? '–' : withInterval(x(f.value), f.lo, f.hi, x);
}

export function printSuccession(
  r: SuccessionReport & { stop?: string; paid?: number; candidates?: number },
): void {
  const f = r.figures;
  if (r.stop) print(`stopped: ${WHY[r.stop] ?? r.stop}; ${r.paid} judge call(s) paid now`);
  print(
    `bridge from ${r.from} to ${r.to}: ${r.bridge.matches} of ${r.bridge.oldMatches} matches (${(100 * r.bridge.share).toFixed(1)}%) over ${f.questions} questions; 95% intervals, ${f.rounds} question-bootstrap rounds`,
  );
  print(
    table([
      { figure: 'agreement (with ties)', value: shown(f.agreement, 1, 100), n: f.agreement.total },
      {
        figure: 'agreement (without ties)',
        value: shown(f.agreementWithoutTies, 1, 100),
        n: f.agreementWithoutTies.total,
      },
      { figure: "Cohen's kappa (with ties)", value: shown(f.kappa), n: f.agreement.total },
      {
        figure: "Cohen's kappa (without ties)",
        value: shown(f.kappaWithoutTies),
        n: f.agreementWithoutTies.total,
      },
      { figure: `inconsistency ${r.from}`, value: shown(f.inconsistency.old, 1, 100), n: f.matches },
      { figure: `inconsistency ${r.to}`, value: shown(f.inconsistency.new, 1, 100), n: f.matches },
      { figure: "Kendall's tau of the ratings", value: shown(f.kendall), n: f.ratings.length },
    ]),
  );
  print('\nratings on the bridge (Bradley–Terry, Elo scale, mean 1000)');
  printTable(f.ratings, (x) => ({
    model: x.model,
    [r.from]: shown(x.old, 0),
    [r.to]: shown(x.new, 0),
    difference: shown(x.difference, 0),
  }));
  print('\nposition bias on the bridge (share of decisive games that picked the answer shown first)');
  printTable(r.judges, (j) => ({
    judge: j.judge,
    games: j.games,
    'first position':
      j.positionA === null ? '– (no games: recorded verdicts)' : `${(100 * j.positionA).toFixed(1)}%`,
    'sign test p': j.signTestP ?? '–',
  }));
  for (const p of r.people) {
    print(`\nagreement with ${p.people} on the bridge (${p.votes} votes), per turn`);
    print(agreementTable(p.rows));
  }
}
