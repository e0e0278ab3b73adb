// How a judge is reached and called, for every command that plays games: parsed into the schema of config files' judges.
import { formatIssueLine, issueLines } from '../core/zod-issues.ts';
import { REASONING_EFFORTS, STRUCTURED_OUTPUTS } from '../judges/contract.ts';
import { setMaxListeners } from 'node:events';
import type { JudgeCallError } from '../judges/judge.ts';
import { CALL_DEFAULTS, JudgeSetup, openJudge } from '../judges/registry.ts';
import { int, num, UsageError } from './format.ts';
import { log } from './shared.ts';

export const judgeCallArgs = {
  'max-tokens': {
    type: 'string',
    default: '2048',
    description: "most tokens a judge reply may have (part of each game's identity)",
  },
  concurrency: { type: 'string', default: '8', description: 'judge calls in flight' },
  'base-url': {
    type: 'string',
    description:
      'OpenAI-compatible server (vLLM, llama.cpp server, Ollama, ...); several, comma-separated, serve one judge together; default: OpenAI, with the key in OPENAI_API_KEY',
  },
  tpm: {
    type: 'string',
    description:
      "the judge server's tokens per minute, for a server that sends no x-ratelimit-* headers (each of several)",
    valueHint: 'TOKENS',
  },
  rpm: {
    type: 'string',
    description:
      "the judge server's requests per minute, for a server that sends no x-ratelimit-* headers (each of several)",
    valueHint: 'REQUESTS',
  },
  timeout: {
    type: 'string',
    description: `seconds per call (default ${CALL_DEFAULTS.timeoutS})`,
    valueHint: 'SECONDS',
  },
  retries: {
    type: 'string',
    description: `retries per call on 429/5xx/timeouts (default ${CALL_DEFAULTS.retries})`,
  },
  backoff: {
    type: 'string',
    description: `first retry delay in ms (doubles each retry, with jitter; a 429 waits its Retry-After) (default ${CALL_DEFAULTS.backoffMs})`,
    valueHint: 'MS',
  },
  'retry-budget': {
    type: 'string',
    description: `seconds one game may spend retrying, waits (Retry-After included) counted; a wait past it fails the game (default ${CALL_DEFAULTS.retryBudgetS})`,
    valueHint: 'SECONDS',
  },
  'reasoning-effort': {
    type: 'string',
    description: `reasoning models: ${REASONING_EFFORTS.join(' | ')} (sent as reasoning_effort; part of each game's identity; more effort, more output tokens billed)`,
    valueHint: 'EFFORT',
  },
  'structured-output': {
    type: 'string',
    description: `ask an OpenAI-compatible server to constrain each reply to the verdict alone (no explanation): ${STRUCTURED_OUTPUTS.join(' | ')} (vLLM >= 0.12 structured_outputs, vLLM's older guided_choice, llama.cpp's grammar)`,
    valueHint: 'SERVER',
  },
  logprobs: {
    type: 'string',
    description:
      "chat models: ask for this many top log-probabilities per token (1-20) and store the verdict's probabilities",
    valueHint: 'N',
  },
} as const;

type CallArgs = { [K in keyof typeof judgeCallArgs]?: string | undefined };

/** A game's settings from --temperature (the judge's own default when not given) and --max-tokens. */
export function settingsOf(args: { temperature?: string | undefined; 'max-tokens': string }) {
  return {
    ...(args.temperature !== undefined ? { temperature: num(args.temperature, 'temperature')! } : {}),
    maxTokens: int(args['max-tokens'], 'max-tokens')!,
  };
}

/** The option each field of JudgeSetup comes from, where its name differs. */
const FLAG: Partial<Record<keyof JudgeSetup, string>> = {
  id: 'judge',
  baseURL: 'base-url',
  apiKeyEnv: 'judge',
  timeoutS: 'timeout',
  backoffMs: 'backoff',
  retryBudgetS: 'retry-budget',
  endpoints: 'base-url',
  reasoningEffort: 'reasoning-effort',
  api: 'structured-output',
};

/** A number where the text is one; anything else is left for the schema to reject with the text it got. */
const numeric = (v: string | undefined) =>
  v === undefined || v.trim() === '' ? undefined : Number.isFinite(Number(v)) ? Number(v) : v;

/** `--judge spec` and the call options, as the schema every judge is set up from; a bad value is a usage error naming its option. */
export function judgeSetupOf(spec: string, args: CallArgs): JudgeSetup {
  const urls = (args['base-url'] ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  const raw = Object.fromEntries(
    Object.entries({
      id: spec,
      ...(urls.length > 1
        ? { endpoints: urls.map((baseURL) => ({ baseURL })) }
        : { baseURL: args['base-url'] }),
      tpm: numeric(args.tpm),
      rpm: numeric(args.rpm),
      timeoutS: numeric(args.timeout),
      retries: numeric(args.retries),
      backoffMs: numeric(args.backoff),
      retryBudgetS: numeric(args['retry-budget']),
      reasoningEffort: args['reasoning-effort'],
      api:
        args['structured-output'] !== undefined || args.logprobs !== undefined
          ? Object.fromEntries(
              Object.entries({
                structuredOutput: args['structured-output'],
                logprobs: numeric(args.logprobs),
              }).filter(([, v]) => v !== undefined),
            )
          : undefined,
    }).filter(([, v]) => v !== undefined),
  );
  const r = JudgeSetup.safeParse(raw, {
    error: (iss) =>
      iss.code === 'invalid_type' && typeof iss.input === 'string'
        ? `expected a number, got "${iss.input}"`
        : undefined,
  });
  if (r.success) return r.data;
  throw new UsageError(
    issueLines(r.error, (path) => ({
      at: `--${path[0] === 'api' && path[1] === 'logprobs' ? 'logprobs' : (FLAG[path[0] as keyof JudgeSetup] ?? String(path[0]))}`,
    }))
      .map(formatIssueLine)
      .join('\n'),
  );
}

/** The judges a command plays with: the first fatal refusal of any (401/403, a retired model) aborts `ctl`. */
export function stoppingJudges(o: { log?: (m: string) => void; planOnly?: boolean } = {}) {
  const ctl = new AbortController();
  setMaxListeners(0, ctl.signal); // one listener per game in flight
  let refused: JudgeCallError | undefined;
  const open = (setup: JudgeSetup) =>
    openJudge(setup, process.env, {
      log: o.log ?? log,
      ...(o.planOnly ? { planOnly: true } : {}),
      onFatal: (e) => {
        refused = e;
        setImmediate(() => ctl.abort(e));
      },
    });
  return { open, ctl, refused: () => refused };
}
