// Judge prices and token estimates: what a game costs, and what a plan will cost before it is played.
import { ArenaError, type GameSpec } from '../core/types.ts';
import type { Price } from './config.ts';

/**
 * USD per 1M tokens (input, output) of OpenAI models often used as judges, from OpenAI's price list
 * (standard tier). A config's `judges[].price` overrides an entry; the Batch API costs half.
 */
export const OPENAI_PRICES: Record<string, Price> = {
  'gpt-4': { input: 30, output: 60 },
  'gpt-4-0613': { input: 30, output: 60 },
  'gpt-4-32k': { input: 60, output: 120 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
};

/** Providers that run locally and cost nothing per token. */
const LOCAL = new Set(['mock', 'llama-cpp']);

/** The price of a judge: the config's, else the table's; local judges are free. Batch mode halves it. */
export function priceFor(judgeId: string, o: { price?: Price | undefined; batch?: boolean } = {}): Price {
  const [provider, ...rest] = judgeId.split('/');
  const model = rest.join('/');
  let p =
    o.price ??
    (LOCAL.has(provider!)
      ? { input: 0, output: 0 }
      : provider === 'openai'
        ? OPENAI_PRICES[model]
        : undefined);
  if (!p)
    throw new ArenaError(
      `[ops:prices] no price known for judge "${judgeId}": give one in the config as judges[].price = { "input": USD per 1M tokens, "output": ... }`,
    );
  if (o.batch) p = { input: p.input / 2, output: p.output / 2 };
  return p;
}

export function costOf(price: Price, tokensIn: number | null, tokensOut: number | null): number | null {
  if (tokensIn === null && tokensOut === null) return null;
  return ((tokensIn ?? 0) * price.input + (tokensOut ?? 0) * price.output) / 1e6;
}

/**
 * How tokens are estimated for games not yet played. Input: the rendered prompt's characters divided
 * by chars-per-token; output: an expected reply length. Both are calibrated from the judge's stored
 * games (their recorded prompt characters vs tokens_in, their mean tokens_out) when it has any;
 * otherwise the config's `estimate.charsPerToken` (default 4) and `estimate.outputTokens` (default:
 * the judge's max_tokens, an upper bound) are used.
 */
export interface TokenModel {
  charsPerToken: number;
  outputTokens: number;
  /** 'calibrated from N games' or 'config' */
  basis: string;
}

/** From the totals of a judge's stored games with token counts (Store.ledger.tokenTotals). */
export function calibrate(
  totals: { games: number; chars: number; tokensIn: number; tokensOut: number },
  fallback: { charsPerToken: number; outputTokens: number },
): TokenModel {
  if (!totals.games || !totals.tokensIn) return { ...fallback, basis: 'config' };
  return {
    charsPerToken: totals.chars / totals.tokensIn,
    outputTokens: totals.tokensOut / totals.games,
    basis: `calibrated from ${totals.games} stored games`,
  };
}

export function estimateTokens(
  spec: Pick<GameSpec, 'systemPrompt' | 'userPrompt'>,
  m: TokenModel,
): { tokensIn: number; tokensOut: number } {
  return {
    tokensIn: Math.ceil((spec.systemPrompt.length + spec.userPrompt.length) / m.charsPerToken),
    tokensOut: m.outputTokens,
  };
}

export function estimateCost(
  spec: Pick<GameSpec, 'systemPrompt' | 'userPrompt'>,
  m: TokenModel,
  price: Price,
): number {
  const t = estimateTokens(spec, m);
  return (t.tokensIn * price.input + t.tokensOut * price.output) / 1e6;
}

/** One judge's line of a dry run's plan (refresh and checkpoints): the games, and what those to play are estimated to take. */
export interface PlanEstimate {
  judge: string;
  planned: number;
  stored: number;
  toPlay: number;
  estTokensIn: number;
  estTokensOut: number;
  /** USD */
  estCost: number;
  /** how tokens were estimated (TokenModel.basis) */
  basis: string;
}

export function planEstimate(
  judge: string,
  planned: number,
  stored: number,
  todo: { spec: Pick<GameSpec, 'systemPrompt' | 'userPrompt'> }[],
  m: TokenModel,
  price: Price,
): PlanEstimate {
  let tokensIn = 0;
  let tokensOut = 0;
  let cost = 0;
  for (const g of todo) {
    const t = estimateTokens(g.spec, m);
    tokensIn += t.tokensIn;
    tokensOut += t.tokensOut;
    cost += estimateCost(g.spec, m, price);
  }
  return {
    judge,
    planned,
    stored,
    toPlay: todo.length,
    estTokensIn: tokensIn,
    estTokensOut: Math.round(tokensOut),
    estCost: cost,
    basis: m.basis,
  };
}

/**
 * A hard spending cap shared by every judge of a refresh. A game starts only when what is spent,
 * plus the estimates of the games in flight, plus its own estimate stays within the cap; after the
 * first refusal nothing more starts. So the cap is overrun only by the estimates' error, and what
 * is left unspent is less than one game's cost. A call whose cost is unknown (a reply without usage, a
 * failed or timed-out call, which may still have been billed) is charged at its reservation, and counted
 * in `estimated`.
 */
export class Budget {
  spent = 0;
  /** USD of `spent` charged at the estimate (calls whose cost was not known) */
  estimated = 0;
  private reserved = 0;
  private readonly held = new Map<string, number>();
  exhausted = false;
  constructor(
    readonly capUsd: number,
    spentBefore = 0,
  ) {
    this.spent = spentBefore;
  }

  /** a gate for runTournament, with one judge's estimate function */
  gate(estimate: (id: string, spec: GameSpec) => number) {
    return {
      reserve: (id: string, spec: GameSpec): boolean => {
        if (this.exhausted) return false;
        const est = estimate(id, spec);
        if (this.spent + this.reserved + est > this.capUsd) {
          this.exhausted = true;
          return false;
        }
        this.reserved += est;
        this.held.set(id, est);
        return true;
      },
      /** Charge a finished call: its cost, or its reservation when the cost is unknown (returned: the USD charged so). */
      settle: (id: string, cost: number | null): number => {
        const est = this.held.get(id) ?? 0;
        this.held.delete(id);
        this.reserved -= est;
        this.spent += cost ?? est;
        if (cost !== null) return 0;
        this.estimated += est;
        return est;
      },
    };
  }
}
