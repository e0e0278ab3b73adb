// Judge prices and token estimates: what a game costs, and what a plan will cost before it is played.
import { ArenaError, type GameSpec } from '../core/types.ts';
import { modelEntry } from '../core/openai-models.ts';
import type { Price } from './config.ts';

/** Providers that run locally and cost nothing per token. */
const LOCAL = new Set(['mock', 'llama-cpp']);

/**
 * The price of a judge: the config's, else the table's; local judges are free. Batch mode halves it. A judge
 * with neither (an OpenAI-compatible local server) costs nothing unless `required` (a budget is set, and the
 * budget needs a price to gate on); `field` names where the config gives it (`judges[0].price`).
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

/**
 * What a call cost as the provider bills it: uncached input at the input rate, cached input at the cached rate,
 * output (reasoning tokens included, as usage counts them) at the output rate.
 */
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
 * How tokens are estimated for games not yet played. Input: the rendered prompt's characters divided
 * by chars-per-token; output: an expected reply length. Both are calibrated from the judge's stored
 * games (their recorded prompt characters vs tokens_in, their mean tokens_out) when it has any;
 * otherwise the config's `estimate.charsPerToken` (default 4) and `estimate.outputTokens` (default:
 * a typical judgment's length, TYPICAL_JUDGMENT_TOKENS) are used.
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

/**
 * The most one call can cost: its prompt's tokens (at `m`'s characters per token, with INPUT_MARGIN) and all of
 * `maxTokens` out, whatever the reply turns out to be.
 */
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
 * A hard spending cap shared by every judge of a refresh. Each call in flight holds its upper bound (prompt +
 * max_tokens, `upperBoundCost`); a call starts when what is spent, plus the bounds of the calls in flight, plus its
 * own bound stays within the cap. When it does not fit but calls are in flight, it waits for them to settle (their
 * real cost frees the rest of their bound); when nothing is in flight and it still does not fit, the next call could
 * cross the cap: the budget is exhausted and nothing more starts. So the cap is never crossed while calls stay within
 * their bound, and what is left unspent is less than one call's bound. A call whose cost is unknown (a reply without
 * usage, a failed or timed-out call, which may still have been billed) is charged at its bound, and counted in
 * `estimated`.
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

  /**
   * A gate for runTournament: `bound` is one call's upper bound. `reserve` resolves true when the call may start
   * (maybe after calls in flight settle), false when the budget is exhausted.
   */
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
   * A gate for Batch API jobs, whose games are all in flight from their batch's submission until its results are
   * imported. A game is submitted when its bound fits beside the bounds of the games in flight (`go`); one that
   * does not fit waits for this job's batches in flight to be imported, their real cost freeing the rest of their
   * bounds (`wait`); with none in flight, it could cross the cap: the budget is exhausted (`stop`). `settle`
   * charges an imported game of this job (its cost, or its bound when unknown; others are not this budget's);
   * `keep` leaves the bounds of the games still in pending batches held for the rest of the refresh without
   * counting them as in flight, so that later runs of the refresh do not wait for them.
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
