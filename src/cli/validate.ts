// Values given on the command line, checked against the database: an unknown judge, model, category or turn is a
// usage error listing the valid values, not an empty table or a silently dropped filter.
import { unknownValueMessage } from '../core/suggest.ts';
import type { Store } from '../storage/store.ts';
import { z } from 'zod';
import { list, UsageError } from './format.ts';

/** Each judge named must have games or recorded votes ("human" when expert votes are imported). */
export async function checkJudges(store: Store, judges: readonly string[]): Promise<void> {
  const known = (await store.games.judges()).map((j) => j.judge);
  for (const judge of judges)
    if (!known.includes(judge))
      throw new UsageError(`--judge: ${unknownValueMessage('judge', judge, known)} (see \`arena judges\`)`);
}

type ModelStore = {
  catalog: Pick<Store['catalog'], 'models'>;
  votes: Pick<Store['votes'], 'list'>;
  games: Pick<Store['games'], 'list'>;
};

/** Every model named must have answers or (unless `withVotes: false`) recorded votes, or be in `judge`'s games. */
export async function checkModels(
  store: ModelStore,
  models: readonly string[],
  option = 'models',
  opts: { withVotes?: boolean; judge?: string } = {},
): Promise<void> {
  const set = new Set(await store.catalog.models());
  if (opts.withVotes ?? true) for (const v of await store.votes.list()) set.add(v.model1).add(v.model2);
  if (opts.judge)
    for (const g of await store.games.list({ judge: opts.judge }))
      [g.match.model1, g.match.model2].forEach((m) => m !== undefined && set.add(m));
  const known = [...set].sort();
  for (const m of models)
    if (!known.includes(m))
      throw new UsageError(
        `--${option}: ${unknownValueMessage(opts.withVotes === false ? 'model (no answers in the database)' : 'model', m, known)}`,
      );
}

export async function checkCategory(store: Store, category: string | undefined): Promise<void> {
  if (category === undefined || category === '') return;
  const cats = [...new Set((await store.catalog.questions()).map((q) => q.category))].sort();
  if (!cats.includes(category))
    throw new UsageError(`--category: ${unknownValueMessage('category', category, cats)}`);
}

/** Turns run from 1 to the most turns any question has. */
export async function checkTurns(
  store: { catalog: Pick<Store['catalog'], 'questions'> },
  turns: readonly number[],
): Promise<void> {
  if (!turns.length) return;
  const max = Math.max(0, ...(await store.catalog.questions()).map((q) => q.turns.length));
  const valid = Array.from({ length: max }, (_, i) => String(i + 1));
  for (const t of turns)
    if (!valid.includes(String(t)))
      throw new UsageError(`--turn: ${unknownValueMessage('turn', String(t), valid)}`);
}

/** A labelled pair set stored by `arena import pairs` (e.g. Natural, Adversarial/Neighbor). */
export async function checkPairSet(
  store: { catalog: Pick<Store['catalog'], 'pairSets'> },
  set: string,
): Promise<void> {
  const known = (await store.catalog.pairSets()).map((s) => s.set).sort();
  if (!known.includes(set))
    throw new UsageError(
      `--set: ${unknownValueMessage('labelled pair set', set, known)} (import sets with \`arena import pairs DIR\`)`,
    );
}

/** `--judge A,B` of the commands that compare two judges (agreement, kappa). */
export const twoJudgesArg = {
  judge: {
    type: 'string',
    required: true,
    description: 'two judges, comma-separated, e.g. gpt-4,human or human,human (--judges: the old spelling)',
  },
} as const;

/** The two judges of `--judge A,B` (a usage error before anything is opened). */
export function twoJudges(arg: string): [string, string] {
  const judges = list(arg) ?? [];
  if (judges.length !== 2) throw new UsageError(`--judge expects two comma-separated judges, got "${arg}"`);
  return [judges[0]!, judges[1]!];
}

/** A number in [min, max] (whole when `int`), and how to say so in an error. */
const range = (min: number, max: number, int = true, what = int ? 'a whole number' : 'a number') =>
  (int ? z.number().int() : z.number()).min(min).max(max).describe(`${what} from ${min} to ${max}`);
const count = (max: number) => range(1, max);
/** A share or probability strictly between 0 and 1. */
const open01 = z.number().gt(0).lt(1).describe('a number between 0 and 1 (both excluded)');
/** The range of every numeric option, whichever command takes it; `--turn` may be a list. */
export const NumericOptions = z
  .object({
    concurrency: count(1024),
    'max-tokens': count(1_000_000),
    rounds: count(100_000),
    samples: count(1_000_000),
    turn: count(100),
    limit: count(1_000_000),
    retries: range(0, 100),
    timeout: range(0.001, 86_400, false, 'a number of seconds'),
    backoff: range(0, 3_600_000, false, 'a number of milliseconds'),
    'retry-budget': range(0.001, 86_400, false, 'a number of seconds'),
    prior: z.number().min(0).describe('a number from 0 up'),
    temperature: range(0, 2, false),
    port: range(0, 65_535, true, 'a port is an integer'),
    seed: z.number().int().describe('a whole number'),
    step: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('a whole number from 0 up'),
    poll: range(0.05, 86_400, false, 'a number of seconds'),
    tpm: count(1e12),
    rpm: count(1e9),
    logprobs: count(20),
    'trust-proxy': range(1, 10, true, 'the number of reverse proxies in front, a whole number'),
    precision: range(0, 1, false),
    'rating-precision': range(0.001, 10_000, false, 'a number of Elo points'),
    'max-calls': range(0, 1e9),
    round: count(1e9),
    target: range(0, 1e9, false),
    below: range(0, 1, false),
    'softent-above': range(-1000, 1000, false, 'a number of nats'),
    level: open01,
    reg: range(0, 1e6, false),
    'min-battles': range(0, 1e9),
    'max-width': range(0, 1e9, false),
    beta: range(0, 1, false),
    gap: range(0.0001, 0.5, false, 'a win-rate gap'),
    alpha: range(0.0001, 0.5, false),
    power: range(0.5, 0.9999, false),
  })
  .partial();

/** Check the numeric options given (`name` -> the text after it) against NumericOptions. */
export function checkNumericOptions(given: Record<string, string>): void {
  const shape = NumericOptions.shape as Record<string, z.ZodType | undefined>;
  for (const [name, text] of Object.entries(given)) {
    const schema = shape[name];
    if (!schema) continue;
    const parts = name === 'turn' ? text.split(',') : [text];
    for (const p of parts) {
      const n = p.trim() === '' ? NaN : Number(p);
      const r = schema.safeParse(Number.isFinite(n) ? n : p);
      if (!r.success)
        throw new UsageError(
          `--${name} ${p}: ${NumericOptions.shape[name as keyof typeof NumericOptions.shape].unwrap().description ?? 'out of range'}`,
        );
    }
  }
}
