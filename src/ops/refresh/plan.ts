// Step 2 of a refresh: plan every judge x mode (and the drift canary), and estimate what the games not
// stored yet will cost. Planning only reads.
import { TYPICAL_JUDGMENT_TOKENS } from '../../core/constants.ts';
import type { GameSpec } from '../../core/types.ts';
import { planRun } from '../../engine/run.ts';
import { estimateSettled } from '../../engine/settle-estimate.ts';
import type { JudgeCallError } from '../../judges/judge.ts';
import type { GovernedJudge } from '../../judges/registry.ts';
import { retirementWarning } from '../../core/retirement.ts';
import type { StoreReader } from '../../storage/pending.ts';
import type { Store } from '../../storage/store.ts';
import { canaryTournament, settleOptions, tournamentOf, type RefreshConfig } from '../config.ts';
import type { OpenJudge } from '../deps.ts';
import { calibrate, planEstimate, priceFor, type TokenModel } from '../prices.ts';
import type { JudgePlan, PlanLine } from './types.ts';

export interface PlanInput {
  store: Store;
  /** the store, or (dry run) a view of it with the import applied */
  reader: StoreReader;
  open: OpenJudge;
  c: RefreshConfig;
  /** the models of the refresh (a mode's own `models` overrides them) */
  models: string[];
  /** the refresh id, the canary's nonce */
  id: string;
  dryRun: boolean;
  onFatal(e: JudgeCallError): void;
}

/** Opens each judge and plans its games; each is pushed to `judges` once open, for the caller to close. */
export async function planJudges(p: PlanInput, judges: JudgePlan[]): Promise<PlanLine[]> {
  const { store, c } = p;
  const plan: PlanLine[] = [];
  for (const [k, j] of c.judges.entries()) {
    const judge = await p.open(j, { onFatal: p.onFatal, planOnly: p.dryRun });
    const price = priceFor(judge.id, {
      price: j.price,
      batch: j.batch,
      required: !!c.budget,
      field: `judges[${k}].price`,
    });
    const tokens = calibrate(await store.ledger.tokenTotals(judge.id), {
      charsPerToken: c.estimate.charsPerToken,
      outputTokens: c.estimate.outputTokens ?? Math.min(TYPICAL_JUDGMENT_TOKENS, c.settings.maxTokens),
    });
    const jp: JudgePlan = { cfg: j, judge, tokens, price, modes: [] };
    const retiring = retirementWarning(await (judge as Partial<GovernedJudge>).retirement?.(), j.baseURL);
    judges.push(jp);
    for (const m of c.modes) {
      const mModels = m.models ?? p.models;
      const baseline = m.mode === 'pairwise-baseline' ? m.baseline : undefined;
      // what the full plan and a settled run's estimate are both planned from
      const shape = {
        judge,
        mode: m.mode,
        models: mModels,
        ...(baseline ? { baseline } : {}),
        ...tournamentOf(c),
      };
      const { games } = await planRun({ store: p.reader, ...shape });
      const stored = await store.games.existingIds(games.map((g) => g.id));
      const todo = uniq(games.filter((g) => !stored.has(g.id)));
      const settle = m.mode !== 'single' && m.untilSettled ? settleOptions(m.untilSettled)! : undefined;
      jp.modes.push({
        mode: m.mode,
        models: mModels,
        ...(baseline ? { baseline } : {}),
        ...(settle ? { settle } : {}),
        games,
        toPlay: todo.length,
      });
      const line = {
        ...planLine(judge.id, m.mode, games.length, games.length - todo.length, todo, tokens, price),
        ...(retiring ? { retiring } : {}),
      };
      plan.push(
        p.dryRun && settle && m.mode !== 'single'
          ? await settledLine(line, { store, plan: { store: p.reader }, ...shape, mode: m.mode, ...settle })
          : line,
      );
    }
    if (c.canary) {
      const { games } = await planRun({ store: p.reader, judge, ...canaryTournament(c, p.id) });
      plan.push(planLine(judge.id, 'canary', games.length, 0, games, tokens, price));
    }
  }
  return plan;
}

/**
 * A dry run's line for a mode played until settled: the calls a settled run is expected to make (simulated:
 * engine/settle-estimate.ts), tokens and cost scaled by the same share, beside the full plan's figures.
 */
async function settledLine(line: PlanLine, o: Parameters<typeof estimateSettled>[0]): Promise<PlanLine> {
  const e = await estimateSettled(o);
  const mid = e.calls[Math.floor(e.calls.length / 2)] ?? 0;
  const share = line.toPlay ? Math.min(1, mid / line.toPlay) : 0;
  const [lo, hi] = [e.calls[0] ?? 0, e.calls[e.calls.length - 1] ?? 0];
  const { toPlay, estTokensIn, estTokensOut, estCost } = line;
  return {
    ...line,
    toPlay: mid,
    estTokensIn: Math.round(share * estTokensIn),
    estTokensOut: Math.round(share * estTokensOut),
    estCost: share * estCost,
    basis: `untilSettled estimate: the median of ${e.calls.length} simulated settled runs (${lo}-${hi} calls) from the ${e.stored} stored games' outcomes${e.stored ? '' : ' (none yet: every model drawn alike)'}, of the ${toPlay} the full plan still needs; ${line.basis}`,
    fullPlan: { toPlay, estTokensIn, estTokensOut, estCost },
  };
}

function uniq<T extends { id: string }>(games: T[]): T[] {
  const seen = new Set<string>();
  return games.filter((g) => !seen.has(g.id) && seen.add(g.id));
}

function planLine(
  judge: string,
  mode: string,
  planned: number,
  stored: number,
  todo: { spec: GameSpec }[],
  tokens: TokenModel,
  price: ReturnType<typeof priceFor>,
): PlanLine {
  const { judge: id, ...e } = planEstimate(judge, planned, stored, todo, tokens, price);
  return { judge: id, mode, ...e };
}
