// The OpenAI models a team may pick as a judge: price, API family, shutdown date, successor. One data table, the
// only place to update when OpenAI changes its price list or deprecations page.

export interface ModelEntry {
  /** USD per 1M tokens, standard tier (Batch: half) */
  input: number;
  /** USD per 1M cached input tokens (`usage.prompt_tokens_details.cached_tokens`); default: `input` */
  cachedInput?: number;
  output: number;
  /** reasoning models take max_completion_tokens, refuse a temperature other than the default, take reasoning_effort */
  family: 'chat' | 'reasoning';
  /** the day the API stops serving it (YYYY-MM-DD), from OpenAI's deprecations page */
  shutdown?: string;
  /** the replacement the deprecations page recommends */
  successor?: string;
}

/**
 * The day the table was read (from OpenAI's API pricing page as third-party tables copy it, and its deprecations
 * page): `arena judges check` and docs/judges.md show it. Prices of models no longer listed are their last ones.
 */
export const OPENAI_MODELS_READ = '2026-06-22';

export const OPENAI_MODELS: Record<string, ModelEntry> = {
  'gpt-5.5': { input: 5, cachedInput: 0.5, output: 30, family: 'reasoning' },
  'gpt-5.4': { input: 2.5, cachedInput: 0.25, output: 15, family: 'reasoning' },
  'gpt-5.4-mini': { input: 0.75, cachedInput: 0.075, output: 4.5, family: 'reasoning' },
  'gpt-5.4-nano': { input: 0.2, cachedInput: 0.02, output: 1.25, family: 'reasoning' },
  'gpt-5.2': { input: 1.75, cachedInput: 0.175, output: 14, family: 'reasoning' },
  'gpt-5.1': { input: 1.25, cachedInput: 0.125, output: 10, family: 'reasoning' },
  'gpt-5': {
    input: 1.25,
    cachedInput: 0.125,
    output: 10,
    family: 'reasoning',
    shutdown: '2026-12-11',
    successor: 'gpt-5.4',
  },
  'gpt-5-mini': {
    input: 0.25,
    cachedInput: 0.025,
    output: 2,
    family: 'reasoning',
    shutdown: '2026-12-11',
    successor: 'gpt-5.4-mini',
  },
  o3: {
    input: 2,
    cachedInput: 0.5,
    output: 8,
    family: 'reasoning',
    shutdown: '2026-12-11',
    successor: 'gpt-5.4',
  },
  'o4-mini': {
    input: 1.1,
    cachedInput: 0.275,
    output: 4.4,
    family: 'reasoning',
    shutdown: '2026-10-23',
    successor: 'gpt-5.4-mini',
  },
  'o3-mini': {
    input: 1.1,
    cachedInput: 0.55,
    output: 4.4,
    family: 'reasoning',
    shutdown: '2026-10-23',
    successor: 'gpt-5.4-mini',
  },
  o1: {
    input: 15,
    cachedInput: 7.5,
    output: 60,
    family: 'reasoning',
    shutdown: '2026-10-23',
    successor: 'gpt-5.4',
  },
  'gpt-4.1': {
    input: 2,
    cachedInput: 0.5,
    output: 8,
    family: 'chat',
    shutdown: '2027-01-14',
    successor: 'gpt-5.4',
  },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6, family: 'chat' },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4, family: 'chat' },
  'gpt-4o': {
    input: 2.5,
    cachedInput: 1.25,
    output: 10,
    family: 'chat',
    shutdown: '2027-01-14',
    successor: 'gpt-5.4',
  },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6, family: 'chat' },
  'gpt-4': { input: 30, output: 60, family: 'chat', shutdown: '2026-10-23', successor: 'gpt-5.4' },
  'gpt-4-0613': { input: 30, output: 60, family: 'chat', shutdown: '2026-10-23', successor: 'gpt-5.4' },
  'gpt-4-32k': { input: 60, output: 120, family: 'chat', shutdown: '2026-10-23', successor: 'gpt-5.4' },
  'gpt-4-turbo': { input: 10, output: 30, family: 'chat', shutdown: '2026-10-23', successor: 'gpt-5.4' },
  'gpt-3.5-turbo': {
    input: 0.5,
    output: 1.5,
    family: 'chat',
    shutdown: '2026-10-23',
    successor: 'gpt-5.4-nano',
  },
};

/** A model's entry, by its name or the dated snapshot of one (`gpt-4.1-YYYY-MM-DD` is `gpt-4.1`'s). */
export function modelEntry(model: string): ModelEntry | undefined {
  if (Object.hasOwn(OPENAI_MODELS, model)) return OPENAI_MODELS[model];
  const base = model.replace(/-\d{4}-\d{2}-\d{2}$/, '');
  return base !== model && Object.hasOwn(OPENAI_MODELS, base) ? OPENAI_MODELS[base] : undefined;
}
