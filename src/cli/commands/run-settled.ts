import type { BaselineModelState } from '../../core/stats/settle-baseline.ts';
import { runUntilSettled, type SettleOptions, type SettleSummary } from '../../engine/settle.ts';
import type { GovernedJudge } from '../../judges/registry.ts';
import { pct } from '../../core/format.ts';
import { exitStatus, print, printJson } from '../shared.ts';

const WHY: Record<SettleSummary['stop'], string> = {
  settled: "settled: every pair's order is decided by the simultaneous intervals",
  decided: 'settled: every model is decided against the baseline',
  futile:
    'settled as far as the plan allows: the pairs still open are unlikely to be separated even with every match left, or only by matches that each add too little',
  exhausted: 'exhausted: every match of the plan is played',
  target: "target reached: the rank intervals' widths sum to at most --target",
  precise: 'precise: every figure of the bridge is within the stated precision',
  'max-calls': 'stopped at --max-calls: the bridge has all the calls it may pay',
  interrupted: 'interrupted: rerun the same command to resume (nothing stored is paid again)',
  failed: 'stopped: some games failed (no verdict stored); rerun the same command to retry them',
  budget: 'stopped at the budget',
};

export async function playUntilSettled(o: SettleOptions, judge: GovernedJudge, json = false): Promise<void> {
  const s = await runUntilSettled({
    ...o,
    onRound: (r) =>
      process.stderr.write(
        `round ${r.round}: ${r.matches} match(es) (both orders) over ${r.open} open pair(s); ${r.stored} of ${r.planned} planned games stored (${judge.id})\n`,
      ),
  });
  if (s.stop === 'failed') exitStatus.code = 2;
  if (s.stop === 'interrupted') exitStatus.code = 130;
  if (json) return printJson(jsonSummary(s));
  print(WHY[s.stop]);
  if (s.ranks)
    print(
      `rank intervals: ${s.ranks
        .slice()
        .sort((a, b) => a.best - b.best || a.worst - b.worst)
        .map((r) => `${r.model} ${r.best === r.worst ? r.best : `${r.best}–${r.worst}`}`)
        .join(', ')}`,
    );
  if (s.models) for (const m of s.models) print(baselineLine(m));
  else if (s.open.length) print(`open pairs: ${s.open.map(([a, b]) => `${a} / ${b}`).join(', ')}`);
  const share = s.planned ? ((100 * s.stored) / s.planned).toFixed(0) : '0';
  print(
    `${s.rounds} round(s), ${s.paid} judge calls paid now; ${s.stored} of the full plan's ${s.planned} games stored (${share}%): the full plan would take ${s.planned} calls, ${s.planned - s.stored} more to complete it with \`arena run\` without --until-settled`,
  );
}

const MODEL_WHY: Record<BaselineModelState['why'], string> = {
  better: 'better than the baseline: the interval excludes 50%',
  worse: 'worse than the baseline: the interval excludes 50%',
  narrow: 'the interval is narrower than --width',
  exhausted: 'undecided: every match is played',
  open: 'still open',
};

/** One model's line against the baseline: its win rate, interval, matches played and why it stopped. */
function baselineLine(m: BaselineModelState): string {
  const i = m.interval;
  return `${m.model}: win rate ${pct(i.mean)} [${pct(i.lo)}, ${pct(i.hi)}] over ${i.n} question(s), ${m.played} of ${m.planned} matches; ${MODEL_WHY[m.why]}`;
}

/** The summary as JSON: why it stopped, the counts, matches played per pair (the matrix) and the skipped pairs. */
function jsonSummary(s: SettleSummary) {
  const { runs, pairs, ...rest } = s;
  return {
    ...rest,
    why: WHY[s.stop],
    fullPlanCalls: s.planned,
    pairs,
    skipped: pairs.filter((p) => !p.played).map((p) => [p.a, p.b]),
    runs: runs.map((r) => r.id),
  };
}
