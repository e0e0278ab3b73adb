// A refresh judge with `succeeds: "OLD"`: before its own plan it plays the bridge of OLD's matches
// (engine/succession.ts) and switches the default board to it only when the bridge's Kendall's tau reaches
// `succession.minKendall`; the record goes into the refresh's published summary.
import type { SuccessionRecord } from '../../core/records.ts';
import { runSuccession, type SuccessionRun } from '../../engine/succession.ts';
import type { RunSummary } from '../../engine/run.ts';
import { successionReport } from '../../reports/succession.ts';
import type { RefreshConfig } from '../config.ts';
import type { Store } from '../../storage/store.ts';

type Options = Parameters<typeof runSuccession>[0];

/** Play `to`'s bridge from `from` through the refresh's `play`, then read it and decide the switch. */
export async function bridgeFirst(
  store: Store,
  s: RefreshConfig['succession'],
  from: string,
  to: string,
  play: (
    how: (full: Omit<Options, 'from' | 'precision' | 'ratingPrecision'>) => Promise<RunSummary[]>,
  ) => Promise<void>,
  log: (m: string) => void,
): Promise<SuccessionRecord> {
  let run: SuccessionRun | undefined;
  await play(async (full) => {
    run = await runSuccession({
      ...full,
      from,
      precision: s.precision,
      ratingPrecision: s.ratingPrecision,
      ...(s.maxCalls !== undefined ? { maxCalls: s.maxCalls } : {}),
    });
    return run.runs;
  });
  const report = await successionReport(store, from, to);
  const tau = report.figures.kendall.value;
  const switched = tau !== null && tau >= s.minKendall;
  const t =
    tau === null ? 'no Kendall’s tau (the bridge rates no two models)' : `Kendall's tau ${tau.toFixed(3)}`;
  const why = switched
    ? `${t} is at least ${s.minKendall}: the board switches from ${from} to ${to}`
    : `${t} is below ${s.minKendall}: the rankings differ beyond the threshold, so ${from}'s board stays the default and both are kept`;
  log(
    `succession ${from} -> ${to}: ${report.bridge.matches} bridge matches (${(100 * report.bridge.share).toFixed(1)}% of ${from}'s); ${why}`,
  );
  return {
    from,
    to,
    at: Date.now(),
    switched,
    minKendall: s.minKendall,
    why,
    stop: run?.stop ?? 'interrupted',
    paid: run?.paid ?? 0,
    report,
  };
}
