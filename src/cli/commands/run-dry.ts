// `arena run --dry-run`: per judge, the games planned and stored, the calls to make with their tokens, least time
// and cost; with --until-settled also the calls a settled run is expected to make.
import { TYPICAL_JUDGMENT_TOKENS } from '../../core/constants.ts';
import { usd } from '../../core/format.ts';
import type { GameSpec } from '../../core/types.ts';
import { planRun } from '../../engine/run.ts';
import { estimateSettled } from '../../engine/settle-estimate.ts';
import type { SettleOptions } from '../../engine/settle.ts';
import type { GovernedJudge } from '../../judges/registry.ts';
import { expectedWallS, requestCost } from '../../judges/rate-limit.ts';
import { calibrate, planEstimate, priceFor } from '../../ops/prices.ts';
import type { StoreReader } from '../../storage/pending.ts';
import type { SqliteStore } from '../../storage/sqlite.ts';
import { print } from '../shared.ts';

interface DryRun {
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
    print(await priceLine(d, j, toPlay, 1, maxTokens));
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
  print(await priceLine(d, j, specs, share, maxTokens));
}

/** What `share` of playing `specs` costs, the tokens estimated as refresh and checkpoints estimate them. */
async function priceLine(
  d: DryRun,
  j: GovernedJudge,
  specs: GameSpec[],
  share: number,
  maxTokens: number,
): Promise<string> {
  const price = knownPrice(j.id);
  if (!price)
    return `cost unknown: no price known for ${j.id} (the price table holds OpenAI's models; mock and llama-cpp judges are free)`;
  const tokens = calibrate(await d.store.ledger.tokenTotals(j.id), {
    charsPerToken: 4,
    outputTokens: Math.min(TYPICAL_JUDGMENT_TOKENS, maxTokens),
  });
  const e = planEstimate(
    j.id,
    specs.length,
    0,
    specs.map((spec) => ({ spec })),
    tokens,
    price,
  );
  const basis =
    tokens.basis === 'config' ? `a typical judgment's ${tokens.outputTokens} reply tokens` : tokens.basis;
  return `about ${usd(share * e.estCost)}: ${Math.round(share * e.estTokensIn)} tokens in, ${Math.round(share * e.estTokensOut)} out (${basis}) at $${price.input}/$${price.output} per 1M tokens in/out`;
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

/** The judge's price (local judges: free), or undefined when none is known. */
export function knownPrice(judgeId: string) {
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
