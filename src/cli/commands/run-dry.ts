// `arena run --dry-run`: per judge, the games planned and stored, the calls to make with their tokens as a rate
// limit counts them and the least time they take under the judge's limits; with --until-settled also the calls
// a settled run is expected to make (engine/settle-estimate.ts), with their tokens, time and, when the judge's
// price is known, cost.
import type { GameSpec } from '../../core/types.ts';
import { planRun } from '../../engine/run.ts';
import { estimateSettled } from '../../engine/settle-estimate.ts';
import type { SettleOptions } from '../../engine/settle.ts';
import type { GovernedJudge } from '../../judges/registry.ts';
import { expectedWallS, requestCost } from '../../judges/rate-limit.ts';
import { calibrate, estimateCost, priceFor } from '../../ops/prices.ts';
import type { StoreReader } from '../../storage/pending.ts';
import type { SqliteStore } from '../../storage/sqlite.ts';
import { print } from '../shared.ts';

export interface DryRun {
  judgeSpecs: string[];
  judge: GovernedJudge;
  makeJudge(spec: string): Promise<GovernedJudge>;
  common: Omit<SettleOptions, 'judge'>;
  reader: StoreReader;
  store: SqliteStore;
  settle: { round?: number; target?: number; width?: number } | undefined;
}

export async function printDryRun(d: DryRun): Promise<void> {
  const maxTokens = d.common.settings?.maxTokens ?? 2048;
  for (const spec of d.judgeSpecs) {
    const j = spec === d.judgeSpecs[0] ? d.judge : await d.makeJudge(spec);
    const { games } = await planRun({ ...d.common, store: d.reader, judge: j });
    const stored = await d.store.games.existingIds(games.map((g) => g.id));
    print(
      `${games.length} games planned, ${stored.size} already stored: ${games.length - stored.size} judge calls to make with ${j.id}`,
    );
    const toPlay = games.filter((g) => !stored.has(g.id)).map((g) => g.spec);
    print(costLine(j, toPlay.length, tokensOf(toPlay, maxTokens)));
    if (d.settle) await printSettled(d, j, maxTokens);
    if (j !== d.judge) await j.close?.();
  }
}

/** The settled run's expected calls, simulated from the stored games, and what they take. */
async function printSettled(d: DryRun, j: GovernedJudge, maxTokens: number): Promise<void> {
  const e = await estimateSettled({ ...d.common, ...d.settle, judge: j, plan: { store: d.reader } });
  const mid = e.calls[Math.floor(e.calls.length / 2)] ?? 0;
  const [lo, hi] = [e.calls[0] ?? 0, e.calls[e.calls.length - 1] ?? 0];
  print(
    `--until-settled: about ${mid} judge calls (${lo}–${hi} over ${e.calls.length} simulated runs) of the ${e.toPlay.length} the full plan still needs, simulated from the ${e.stored} stored games' outcomes${e.stored ? '' : ' (none yet: every model drawn alike)'}`,
  );
  const share = e.toPlay.length ? mid / e.toPlay.length : 0;
  const specs = e.toPlay.map((g) => g.spec);
  print(costLine(j, mid, Math.round(share * tokensOf(specs, maxTokens))));
  const price = knownPrice(j.id);
  if (price) {
    const tokens = calibrate(await d.store.ledger.tokenTotals(j.id), {
      charsPerToken: 4,
      outputTokens: maxTokens,
    });
    const usd = share * specs.reduce((s, g) => s + estimateCost(g, tokens, price), 0);
    print(
      `about $${usd.toFixed(2)} at $${price.input}/$${price.output} per 1M tokens in/out (${tokens.basis === 'config' ? `up to ${maxTokens} reply tokens per game` : tokens.basis})`,
    );
  }
}

function tokensOf(specs: GameSpec[], maxTokens: number): number {
  return specs.reduce(
    (s, g) => s + requestCost({ system: g.systemPrompt, user: g.userPrompt, maxTokens }),
    0,
  );
}

function costLine(j: GovernedJudge, requests: number, tokens: number): string {
  const limits = j.limits();
  const wall = expectedWallS({ tokens, requests, ...limits });
  return wall === undefined
    ? `about ${tokens} tokens as a rate limit counts them (prompt + max_tokens); no limit known (declare --tpm/--rpm for an expected time)`
    : `about ${tokens} tokens as a rate limit counts them (prompt + max_tokens); under ${[limits.tpm ? `${limits.tpm} tokens/min` : '', limits.rpm ? `${limits.rpm} requests/min` : ''].filter(Boolean).join(' and ')} that takes at least ${formatDuration(wall)} (plus the answers' own latency)`;
}

function knownPrice(judgeId: string) {
  try {
    return priceFor(judgeId);
  } catch {
    return undefined;
  }
}

function formatDuration(s: number): string {
  if (s < 90) return `${s.toFixed(0)} s`;
  if (s < 5400) return `${(s / 60).toFixed(1)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
