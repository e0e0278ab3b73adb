// `arena run`'s options and the checks of --until-settled's.
import type { ArgsDef, ParsedArgs } from 'citty';
import { DEFAULT_BASELINE, DEFAULT_REFERENCE_SOURCE } from '../../core/constants.ts';
import type { Mode } from '../../core/types.ts';
import { int, num, UsageError } from '../format.ts';
import { judgeCallArgs } from '../judge-args.ts';
import { dbArg } from '../shared.ts';

export const MODES = ['pairwise-all', 'pairwise-baseline', 'single'] as const;

export const runArgs = {
  ...dbArg,
  judge: {
    type: 'string',
    required: true,
    description:
      'openai/<model>, llama-cpp/<path.gguf>[?threads=1&ctx=4096&gpuLayers=auto&sequences=4&grammar=on] or mock/<behaviour>; repeat --judge to play every match with each judge (side by side)',
  },
  'escalate-to': {
    type: 'string',
    description:
      'second judge for the matches the (local) --judge is unsure of: low confidence, inconsistent orders, unparsable',
  },
  reliability: {
    type: 'string',
    description:
      "softent-cali: a llama-cpp judge also scores each pairwise game's reliability (SoftEnt-Cali, stored per game; needs --base-gguf)",
  },
  'base-gguf': {
    type: 'string',
    description:
      "with --reliability softent-cali: the judge's foundation model (a GGUF with the same vocabulary)",
  },
  below: {
    type: 'string',
    default: '0.6',
    description: "with --escalate-to: escalate a match when a game's verdict probability is below this",
  },
  'softent-above': {
    type: 'string',
    description:
      "with --escalate-to and --reliability softent-cali: also escalate a match when a game's SoftEnt-Cali (nats) is above this",
  },
  models: {
    type: 'string',
    description:
      'comma-separated models (pairwise-all pairs them in this order); with --set: output_1,output_2',
  },
  set: {
    type: 'string',
    description:
      'judge a labelled pair set (arena import pairs; e.g. Natural) instead of the tournament: read its accuracy with `arena accuracy`',
  },
  mode: { type: 'string', default: 'pairwise-all', description: MODES.join(' | ') },
  baseline: {
    type: 'string',
    default: DEFAULT_BASELINE,
    description: 'baseline model for pairwise-baseline',
  },
  questions: {
    type: 'string',
    description: 'question.jsonl to import and judge (default: the questions the models have answers for)',
  },
  answers: {
    type: 'string',
    description: 'comma-separated model_answer files or directories to import first',
  },
  turn: {
    type: 'string',
    default: '1,2',
    description: 'turns to judge, comma-separated (--turns: the old spelling)',
  },
  prompts: {
    type: 'string',
    description:
      "prompt set: mt-bench | arena (default: mt-bench when imported); pairwise only, each with its own parser: judgelm | pandalm | autoj | prometheus | arena-hard | llmbar (LLMBar's plain prompt)",
  },
  reference: {
    type: 'string',
    default: DEFAULT_REFERENCE_SOURCE,
    description: 'reference answer source for math/reasoning/coding',
  },
  parser: {
    type: 'string',
    default: 'last',
    description: 'last (the verdict given last) | fastchat (FastChat precedence)',
  },
  temperature: {
    type: 'string',
    description:
      "sampling temperature of the judge (part of each game's identity; default 0 for chat models, none sent to reasoning models, which refuse any but their own)",
  },
  ...judgeCallArgs,
  'dry-run': { type: 'boolean', description: 'print the plan and exit' },
  json: {
    type: 'boolean',
    description:
      'with --until-settled: print the summary as JSON (why it stopped, matches played per pair, the skipped pairs)',
  },
  'until-settled': {
    type: 'boolean',
    description:
      "play the plan's matches in rounds, each chosen where the intervals are still open; pairwise-all: stop once every pair's order is decided; pairwise-baseline: stop each model once its interval against the baseline excludes 50% (or is narrower than --width). A later full run pays only what was skipped",
  },
  round: {
    type: 'string',
    valueHint: 'MATCHES',
    description:
      'with --until-settled: matches per round (pairwise-baseline: per model; default: a tenth of the plan)',
  },
  width: {
    type: 'string',
    valueHint: 'SHARE',
    description:
      "with --until-settled and pairwise-baseline: also stop a model once its win rate's interval is narrower than this (0-1, e.g. 0.1)",
  },
  target: {
    type: 'string',
    valueHint: 'WIDTH',
    description:
      "with --until-settled: also stop once the rank intervals' widths (worst − best) sum to at most this",
  },
} satisfies ArgsDef;

export type RunArgs = ParsedArgs<typeof runArgs>;

/** The --judge specs, a llama-cpp judge's given `reliability=softent-cali&base=<file>` when --reliability asks. */
export function judgeSpecsOf(args: RunArgs): string[] {
  const specs = withReliability(args, [args.judge as string | string[]].flat());
  if (args['softent-above'] !== undefined) {
    if (!args['escalate-to'])
      throw new UsageError('--softent-above escalates: give --escalate-to <second judge>');
    if (!specs.some((s) => s.startsWith('llama-cpp/') && /[?&]reliability=softent-cali\b/.test(s)))
      throw new UsageError(
        '--softent-above reads SoftEnt-Cali, which the local judge computes only when asked: give --reliability softent-cali --base-gguf <foundation.gguf>',
      );
  }
  return specs;
}

function withReliability(args: RunArgs, specs: string[]): string[] {
  if (args.reliability === undefined && args['base-gguf'] === undefined) return specs;
  if (args.reliability !== 'softent-cali' || !args['base-gguf'])
    throw new UsageError('--reliability softent-cali and --base-gguf <foundation.gguf> go together');
  if (!specs.some((s) => s.startsWith('llama-cpp/')))
    throw new UsageError(
      '--reliability softent-cali is computed by a llama-cpp judge: give --judge llama-cpp/<file>',
    );
  const extra = new URLSearchParams({ reliability: 'softent-cali', base: args['base-gguf'] }).toString();
  return specs.map((s) => (s.startsWith('llama-cpp/') ? `${s}${s.includes('?') ? '&' : '?'}${extra}` : s));
}

/** --until-settled's options, checked: undefined without the flag. */
export function settleArgs(args: RunArgs, mode: Mode, judges: number) {
  if (!args['until-settled']) {
    if (args.round !== undefined || args.target !== undefined || args.width !== undefined || args.json)
      throw new UsageError('--round, --target, --width and --json go with --until-settled');
    return undefined;
  }
  if (mode === 'single')
    throw new UsageError('--until-settled schedules --mode pairwise-all or pairwise-baseline only');
  if (args.width !== undefined && mode !== 'pairwise-baseline')
    throw new UsageError('--width goes with --mode pairwise-baseline (pairwise-all stops on --target)');
  if (args.target !== undefined && mode !== 'pairwise-all')
    throw new UsageError('--target goes with --mode pairwise-all (pairwise-baseline stops on --width)');
  if (judges > 1 || args['escalate-to'])
    throw new UsageError('--until-settled plays one judge (no repeated --judge, no --escalate-to)');
  const round = int(args.round, 'round');
  const target = num(args.target, 'target');
  const width = num(args.width, 'width');
  if (width !== undefined && !(width > 0 && width <= 1))
    throw new UsageError(`--width is a share of wins: a number above 0 and at most 1, not ${args.width}`);
  return {
    ...(round !== undefined ? { round } : {}),
    ...(target !== undefined ? { target } : {}),
    ...(width !== undefined ? { width } : {}),
    ...(args.json ? { json: true } : {}),
  };
}
