// `arena run` with several --judge (side by side) or with --escalate-to (a second judge where the local one is unsure).
import { runEscalation } from '../../engine/escalate.ts';
import { runTournament, type RunOptions, type RunSummary } from '../../engine/run.ts';
import type { JudgeProvider } from '../../judges/judge.ts';
import { costOf } from '../../ops/prices.ts';
import { knownPrice } from './run-dry.ts';
import { usd } from '../../core/format.ts';
import { runName, UsageError } from '../format.ts';
import { exitStatus, print, log } from '../shared.ts';
import { failureLines } from '../errors.ts';

interface RunManyOptions {
  common: RunOptions;
  judge: JudgeProvider;
  judgeSpecs: string[];
  makeJudge(spec: string): Promise<JudgeProvider>;
  escalateTo?: string;
  below: number;
  softentAbove?: number;
}

function report(s: RunSummary): void {
  const secs = ((s.finishedAt! - s.startedAt) / 1000).toFixed(1);
  print(
    `${runName(s)} (${s.judge}): ${s.played} played, ${s.failed} failed, ${s.planned - s.toPlay} already stored or not asked for, ${s.tokensIn + s.tokensOut} tokens${s.cost != null ? `, ${usd(s.cost)}` : ''}, ${secs} s`,
  );
  if (s.failed) {
    for (const l of failureLines(s.errors)) log(l);
    exitStatus.code = 2;
  }
  if (s.status === 'interrupted') exitStatus.code = 130;
}

export async function runMany(o: RunManyOptions): Promise<void> {
  const onPlan =
    (id: string) =>
    ({ planned, stored, toPlay }: { planned: number; stored: number; toPlay: number }) =>
      log(`${id}: ${planned} games planned, ${stored} already stored: ${toPlay} judge calls to make`);
  if (o.escalateTo) {
    if (o.judgeSpecs.length !== 1)
      throw new UsageError('--escalate-to takes exactly one --judge (the local judge)');
    if (!(o.below > 0 && o.below <= 1))
      throw new UsageError(`--below expects a probability in (0, 1], got ${o.below}`);
    const second = await o.makeJudge(o.escalateTo);
    const price = knownPrice(second.id);
    if (!price) log(`no price known for ${second.id}: the escalation's cost is reported in tokens only`);
    try {
      const r = await runEscalation({
        ...o.common,
        local: o.judge,
        second,
        below: o.below,
        ...(o.softentAbove !== undefined ? { softentAbove: o.softentAbove } : {}),
        onStage: (stage, id) => log(`${stage === 'local' ? 'local judge' : 'escalating to'} ${id}`),
        ...(price ? { secondCostOf: (i: number | null, out: number | null) => costOf(price, i, out) } : {}),
      });
      report(r.local);
      report(r.second);
      const reasons =
        Object.entries(r.reasons)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ') || 'none';
      print(
        `escalated ${r.escalated} of ${r.matches} matches (${r.matches ? ((100 * r.escalated) / r.matches).toFixed(1) : '0'}%) to ${second.id}: ${reasons}`,
      );
      print(
        `cost of escalation: ${r.second.played} calls, ${r.tokens} tokens${r.cost != null ? `, ${usd(r.cost)}` : ''}${r.escalated && r.second.played ? `; judging all ${r.matches} matches with ${second.id} would take about ${Math.round((r.second.played * r.matches) / r.escalated)} calls${r.cost != null ? ` and ${usd((r.cost * r.matches) / r.escalated)}` : ''}` : ''}`,
      );
      if (r.vsSecondEverywhere)
        print(
          `combined verdicts agree with ${second.id} on every match in ${r.vsSecondEverywhere.agree} of ${r.vsSecondEverywhere.matches} matches (${(100 * r.vsSecondEverywhere.ratio).toFixed(1)}%)`,
        );
      else
        print(
          `(to compare with judging everything by ${second.id}, run it over all matches once; then this run reports the agreement)`,
        );
    } finally {
      await second.close?.();
    }
    return;
  }
  const judges = [o.judge, ...(await Promise.all(o.judgeSpecs.slice(1).map(o.makeJudge)))];
  try {
    // one judge after the other: a local model and an API judge do not share anything worth overlapping
    for (const judge of judges) report(await runTournament({ ...o.common, judge, onPlan: onPlan(judge.id) }));
    print(
      `side by side: ${judges.map((j) => j.id).join(' | ')}; see \`arena judges\` for the judgment-quality report`,
    );
  } finally {
    for (const j of judges.slice(1)) await j.close?.();
  }
}
