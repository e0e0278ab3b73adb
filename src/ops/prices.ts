// Judge prices and token estimates: what a game costs, and what a plan will cost before it is played.
import { ArenaError, type GameSpec } from '../core/types.ts';
import { modelEntry } from '../core/openai-models.ts';
import type { Price } from './config.ts';

/** Providers that run locally and cost nothing per token. */
const LOCAL = new Set(['mock', 'llama-cpp']);

/**
 * The price of a judge: the config's, else the table's; local judges are free; batch mode halves it. With none,
 * free unless `required` (a budget needs a price); `field` names where the config gives it.
 */
export function priceFor(
  judgeId: string,
  o: { price?: Price | undefined; batch?: boolean; required?: boolean; field?: string } = {},
): Price {
  const [provider, ...rest] = judgeId.split('/');
  const model = rest.join('/');
  let p =
    o.price ??
    (LOCAL.has(provider!) ? { input: 0, output: 0 } : provider === 'openai' ? tablePrice(model) : undefined);
  if (!p && o.required === false) return { input: 0, output: 0 };
  if (!p)
    throw new ArenaError(
      `[ops:prices] no price known for judge "${judgeId}"${o.required ? ', and the config sets a budget' : ''}: give one in the config as ${o.field ?? 'judges[].price'} = { "input": USD per 1M tokens, "output": USD per 1M tokens } ({ "input": 0, "output": 0 } for a free local server)`,
      o.field ? { field: o.field } : undefined,
    );
  if (o.batch)
    p = {
      input: p.input / 2,
      output: p.output / 2,
      ...(p.cachedInput !== undefined ? { cachedInput: p.cachedInput / 2 } : {}),
    };
  return p;
}

/** An `openai/<model>` judge's price from the table (core/openai-models.ts), read on OPENAI_MODELS_READ. */
export function tablePriceOf(judgeId: string): Price | undefined {
  return judgeId.startsWith('openai/') ? tablePrice(judgeId.slice('openai/'.length)) : undefined;
}

function tablePrice(model: string): Price | undefined {
  const e = modelEntry(model);
  return (
    e && {
      input: e.input,
      output: e.output,
      ...(e.cachedInput !== undefined ? { cachedInput: e.cachedInput } : {}),
    }
  );
}

/** What a call cost as billed: uncached, cached and output tokens (reasoning included) each at its rate. */
export function costOf(
  price: Price,
  tokensIn: number | null,
  tokensOut: number | null,
  tokensCached: number | null = null,
): number | null {
  if (tokensIn === null && tokensOut === null) return null;
  const cached = Math.min(tokensCached ?? 0, tokensIn ?? 0);
  const uncached = (tokensIn ?? 0) - cached;
  return (
    (uncached * price.input + cached * (price.cachedInput ?? price.input) + (tokensOut ?? 0) * price.output) /
    1e6
  );
}

/**
 * How tokens are estimated for games not yet played: calibrated from the judge's stored games when it has any,
 * else the config's `estimate.charsPerToken` (default 4) and `estimate.outputTokens` (TYPICAL_JUDGMENT_TOKENS).
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

/** A prompt's input tokens at `m`'s characters per token (times `margin`). */
const inputTokens = (
  spec: Pick<GameSpec, 'systemPrompt' | 'userPrompt'>,
  m: Pick<TokenModel, 'charsPerToken'>,
  margin = 1,
) => Math.ceil(((spec.systemPrompt.length + spec.userPrompt.length) / m.charsPerToken) * margin);

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
  let cost = 0;
  for (const g of todo) {
    const t = inputTokens(g.spec, m);
    tokensIn += t;
    cost += (t * price.input + m.outputTokens * price.output) / 1e6;
  }
  return {
    judge,
    planned,
    stored,
    toPlay: todo.length,
    estTokensIn: tokensIn,
    estTokensOut: Math.round(todo.length * m.outputTokens),
    estCost: cost,
    basis: m.basis,
  };
}

/** A tokenizer may pack one prompt worse than the average a model was calibrated on: its upper bound allows this. */
const INPUT_MARGIN = 1.25;

/** The most one call can cost: its prompt's tokens (with INPUT_MARGIN) and all of `maxTokens` out. */
export function upperBoundCost(
  spec: Pick<GameSpec, 'systemPrompt' | 'userPrompt'>,
  m: Pick<TokenModel, 'charsPerToken'>,
  price: Price,
  maxTokens: number,
): number {
  return (inputTokens(spec, m, INPUT_MARGIN) * price.input + maxTokens * price.output) / 1e6;
}

interface BudgetWaiter {
  id: string;
  cost: number;
  resolve(ok: boolean): void;
}

/**
 * A hard spending cap shared by every judge of a refresh. Each call in flight holds its upper bound; a call
 * starts when what is spent plus the bounds in flight plus its own stays within the cap, else waits for calls in
 * flight to settle; with none in flight the budget is exhausted. So the cap is never crossed. A call whose cost
 * is unknown (maybe billed) is charged its bound, and counted in `estimated`.
 */
export class Budget {
  spent = 0;
  /** USD of `spent` charged at the bound (calls whose cost was not known) */
  estimated = 0;
  private reserved = 0;
  private readonly held = new Map<string, number>();
  private readonly waiting: BudgetWaiter[] = [];
  exhausted = false;
  constructor(
    readonly capUsd: number,
    spentBefore = 0,
  ) {
    this.spent = spentBefore;
  }

  private fits(cost: number): boolean {
    return this.spent + this.reserved + cost <= this.capUsd;
  }

  private hold(id: string, cost: number): void {
    this.reserved += cost;
    this.held.set(id, cost);
  }

  /** start the waiting calls that fit now, in order; with nothing in flight, one that does not fit ends it all */
  private pump(): void {
    while (this.waiting.length && !this.exhausted) {
      const w = this.waiting[0]!;
      if (!this.fits(w.cost)) {
        if (this.held.size) return;
        this.exhausted = true;
        break;
      }
      this.waiting.shift();
      this.hold(w.id, w.cost);
      w.resolve(true);
    }
    if (this.exhausted) for (const w of this.waiting.splice(0)) w.resolve(false);
  }

  /** A gate for runTournament: resolves true when a call of `bound` may start, false when the budget is exhausted. */
  gate(bound: (id: string, spec: GameSpec) => number) {
    return {
      reserve: (id: string, spec: GameSpec): boolean | Promise<boolean> => {
        if (this.exhausted) return false;
        const cost = bound(id, spec);
        if (!this.waiting.length && this.fits(cost)) {
          this.hold(id, cost);
          return true;
        }
        if (!this.held.size && !this.waiting.length) {
          this.exhausted = true;
          return false;
        }
        return new Promise<boolean>((resolve) => {
          this.waiting.push({ id, cost, resolve });
          this.pump();
        });
      },
      /** Charge a finished call: its cost, or its bound when the cost is unknown (returned: the USD charged so). */
      settle: (id: string, cost: number | null): number => {
        const est = this.held.get(id) ?? 0;
        this.held.delete(id);
        this.reserved -= est;
        this.spent += cost ?? est;
        this.pump();
        if (cost !== null) return 0;
        this.estimated += est;
        return est;
      },
    };
  }

  /**
   * A gate for Batch API jobs, whose games are in flight from submission to import: `go` when a game's bound
   * fits, `wait` for this job's batches to be imported, `stop` when none is in flight. `settle` charges an
   * imported game of this job; `keep` holds the bounds of games still pending for the rest of the refresh
   * without counting them as in flight.
   */
  batch(bound: (id: string, spec: GameSpec) => number): BatchGate {
    const mine = new Set<string>();
    const g = this.gate(bound);
    return {
      reserve: (id, spec) => {
        if (this.exhausted) return 'stop';
        const cost = bound(id, spec);
        if (this.fits(cost)) {
          this.hold(id, cost);
          mine.add(id);
          return 'go';
        }
        if (mine.size) return 'wait';
        this.exhausted = true;
        return 'stop';
      },
      settle: (id, cost) => (mine.delete(id) ? g.settle(id, cost) : 0),
      keep: () => {
        for (const id of mine) this.held.delete(id);
        mine.clear();
      },
    };
  }
}

/** A budget's gate for the games of Batch API jobs (Budget.batch). */
export interface BatchGate {
  /** `go`: submit it (its bound is held); `wait`: it may fit once batches in flight are imported; `stop`: exhausted */
  reserve(id: string, spec: GameSpec): 'go' | 'wait' | 'stop';
  /** charge an imported game: its cost, or its bound when unknown (returned: the USD charged at the bound) */
  settle(id: string, cost: number | null): number;
  /** the games still in pending batches keep their bounds, no longer counted as in flight */
  keep(): void;
}
