import { z } from 'zod';
import { ArenaError } from '../core/types.ts';
import {
  isOpenAI,
  REASONING_EFFORTS,
  sentSettings,
  STRUCTURED_OUTPUTS,
  type ApiOptions,
} from './contract.ts';
import { retirementOf, type ListedModel, type Retirement } from '../core/retirement.ts';
import { stopOnFatal } from './fatal-stop.ts';
import { wrapProvider, type AskedSettings, type JudgeCallError, type JudgeProvider } from './judge.ts';
import { endpointPool, governorGate, type Endpoint } from './endpoints.ts';
import { RateGovernor } from './governor.ts';
import type { OpenAIJudgeOptions } from './openai.ts';
import { withRetry } from './retry.ts';
import { serverName } from './redact.ts';
import { faultKind, retryLog } from './retry-log.ts';

/** A provider from its "provider/model" name, loaded lazily (a mock run never loads the SDK or native modules). */
export async function createJudge(
  spec: string,
  o: Omit<OpenAIJudgeOptions, 'model'> = {},
): Promise<JudgeProvider> {
  const slash = spec.indexOf('/');
  const provider = slash < 0 ? spec : spec.slice(0, slash);
  const model = slash < 0 ? '' : spec.slice(slash + 1);
  if (!model)
    throw new ArenaError(`[judge] "${spec}": expected provider/model, e.g. openai/gpt-4 or mock/random`);
  switch (provider) {
    case 'openai': {
      const { openaiJudge } = await import('./openai.ts');
      return openaiJudge({ model, ...o });
    }
    case 'llama-cpp': {
      const { llamaCppJudge, parseLlamaSpec } = await import('./llama-cpp/provider.ts');
      return llamaCppJudge(parseLlamaSpec(model));
    }
    case 'mock': {
      const { mockJudge } = await import('./mock.ts');
      return mockJudge(model);
    }
    default:
      throw new ArenaError(
        `[judge] unknown provider "${provider}" in "${spec}" (known: openai, llama-cpp, mock)`,
      );
  }
}

/** The defaults of every judge call, whether set by `arena run` flags or by `judges[]` in a config file. */
export const CALL_DEFAULTS = { timeoutS: 120, retries: 8, backoffMs: 1000, retryBudgetS: 600 } as const;

/** Where an OpenAI judge's key is read when nothing else is said. */
const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';

/** the name of an environment variable that holds an API key */
const ApiKeyEnv = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name')
  .optional();

/** One server of a judge served by several; its limits default to the judge's. */
const EndpointSetup = z.strictObject({
  baseURL: z.url(),
  apiKeyEnv: ApiKeyEnv,
  tpm: z.number().positive().optional(),
  rpm: z.number().positive().optional(),
  /** a share of the calls when several endpoints could take one at once (default 1) */
  weight: z.number().positive().optional(),
});

/**
 * How to reach a judge and how to call it. `arena run`/`calibrate` flags and the `judges[]` of refresh and
 * checkpoints configs are parsed into this one schema (ops/config.ts extends it with price and concurrency).
 */
export const JudgeSetup = z.strictObject({
  /** provider/model, as `arena run --judge` */
  id: z.string().regex(/^[a-z][a-z0-9-]*\/.+$/, 'expected provider/model, e.g. openai/gpt-4 or mock/random'),
  /** an OpenAI-compatible server (vLLM, llama.cpp server, Ollama, ...); default: OpenAI */
  baseURL: z.url().optional(),
  /** the environment variable holding the API key, never the key itself (default OPENAI_API_KEY) */
  apiKeyEnv: ApiKeyEnv,
  /** seconds per attempt */
  timeoutS: z.number().positive().default(CALL_DEFAULTS.timeoutS),
  /** retries per call on 429/5xx/timeouts/dropped connections */
  retries: z.number().int().nonnegative().default(CALL_DEFAULTS.retries),
  /** the first retry's delay in ms; doubles each retry, with jitter (a 429 waits its Retry-After) */
  backoffMs: z.number().nonnegative().default(CALL_DEFAULTS.backoffMs),
  /** seconds one call may spend retrying, waits included; a wait past it fails the call */
  retryBudgetS: z.number().positive().default(CALL_DEFAULTS.retryBudgetS),
  /** declared tokens per minute, for a server that sends no x-ratelimit-* headers */
  tpm: z.number().positive().optional(),
  /** declared requests per minute */
  rpm: z.number().positive().optional(),
  /** several servers for this one judge (instead of baseURL): each call goes to the one that can take it soonest */
  endpoints: z.array(EndpointSetup).min(1).optional(),
  /** reasoning models: how many hidden reasoning tokens to spend (sent as reasoning_effort; part of each game's identity) */
  reasoningEffort: z.enum(REASONING_EFFORTS).optional(),
  /** what the model's API takes, where the guess from its name is wrong or the server can do more (judges/contract.ts) */
  api: z
    .strictObject({
      family: z.enum(['chat', 'reasoning']).optional(),
      maxTokensParam: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
      /** null: send no temperature (the model's default) */
      temperature: z.number().min(0).max(2).nullable().optional(),
      /** ask the server to constrain the reply to the verdict alone: vLLM (>= 0.12, or its older guided_choice), llama.cpp */
      structuredOutput: z.enum(STRUCTURED_OUTPUTS).optional(),
      /** ask for this many top log-probabilities per token and keep the verdict's probabilities (chat models) */
      logprobs: z.number().int().min(1).max(20).optional(),
    })
    .optional(),
});
export type JudgeSetup = z.infer<typeof JudgeSetup>;

/** A judge as openJudge opens it: with the limits its endpoints' governors know now (declared or announced). */
export type GovernedJudge = JudgeProvider & {
  limits(): { tpm?: number; rpm?: number };
  /** when the model stops being served: the server's shutdown_date (GET /v1/models), else the table's */
  retirement(now?: number): Promise<Retirement | undefined>;
  /** the tokens charged so far as a limit counts them (prompt + max_tokens per call sent) */
  tokensCharged(): number;
};

export interface OpenJudgeOptions {
  /** told of each retry, as one line (`[openai/gpt-4] retry 1 in 1.0 s: ...`) */
  log?(line: string): void;
  /** told once of the first fatal refusal (judges/fatal-stop.ts): the caller stops its run */
  onFatal?(e: JudgeCallError): void;
  /** no call will be made (a dry run): the API key is not required */
  planOnly?: boolean;
}

/** The judge's API key from `env`: a variable named on purpose must be set; OPENAI_API_KEY only for OpenAI itself. */
export function apiKeyOf(setup: JudgeSetup, env: Record<string, string | undefined>): string | undefined {
  const keyEnv = setup.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  const apiKey = env[keyEnv] || undefined;
  if (apiKey) return apiKey;
  if (setup.apiKeyEnv)
    throw new ArenaError(`judge ${setup.id}: the environment variable ${keyEnv} (apiKeyEnv) is not set`);
  if (setup.id.startsWith('openai/') && !setup.baseURL && !setup.endpoints)
    throw new ArenaError(
      `${keyEnv} is not set, and ${setup.id} would call OpenAI with no key: \`export ${keyEnv}=...\`, or pass --base-url (baseURL in a config file) for an OpenAI-compatible server (vLLM, llama.cpp server, Ollama) that needs none`,
    );
  return undefined;
}

/** A judge's API options: its `api` and its reasoning effort (judges/contract.ts). */
function apiOptionsOf(setup: Pick<JudgeSetup, 'api' | 'reasoningEffort'>): ApiOptions {
  return { ...setup.api, ...(setup.reasoningEffort ? { reasoningEffort: setup.reasoningEffort } : {}) };
}

/** What an OpenAI-compatible judge sends for the asked settings, known without opening it (a dry run's plan). */
export function plannedSettings(setup: Pick<JudgeSetup, 'id' | 'api' | 'reasoningEffort'>) {
  return setup.id.startsWith('openai/')
    ? (asked: AskedSettings) => sentSettings(setup.id.slice('openai/'.length), asked, apiOptionsOf(setup))
    : undefined;
}

/** The setup of each endpoint that serves one judge (one, unless `endpoints` lists several). */
function endpointSetups(setup: JudgeSetup) {
  if (setup.endpoints && setup.baseURL)
    throw new ArenaError(`judge ${setup.id}: give baseURL or endpoints, not both`);
  const eps = setup.endpoints ?? [
    {
      ...(setup.baseURL ? { baseURL: setup.baseURL } : {}),
      ...(setup.apiKeyEnv ? { apiKeyEnv: setup.apiKeyEnv } : {}),
    },
  ];
  return eps.map((ep) => ({
    ep,
    one: {
      ...setup,
      ...(ep.baseURL ? { baseURL: ep.baseURL } : {}),
      ...((ep.apiKeyEnv ?? setup.apiKeyEnv) ? { apiKeyEnv: ep.apiKeyEnv ?? setup.apiKeyEnv } : {}),
    },
  }));
}

/** Every endpoint of every judge has its key in `env`: run first, so a missing key is said before any work. */
export function checkApiKeys(setups: Iterable<JudgeSetup>, env: Record<string, string | undefined>): void {
  for (const setup of setups) for (const { one } of endpointSetups(setup)) apiKeyOf(one, env);
}

/** The one way a judge is set up: the provider with its key, rate governors, timeouts, retries and a fatal stop. */
export async function openJudge(
  setup: JudgeSetup,
  env: Record<string, string | undefined>,
  o: OpenJudgeOptions = {},
): Promise<GovernedJudge> {
  const endpoints: Endpoint[] = [];
  for (const { ep, one } of endpointSetups(setup)) {
    const apiKey = o.planOnly ? env[one.apiKeyEnv ?? DEFAULT_API_KEY_ENV] || undefined : apiKeyOf(one, env);
    const provider = await createJudge(setup.id, {
      baseURL: one.baseURL,
      apiKey,
      apiKeyEnv: one.apiKeyEnv,
      api: apiOptionsOf(setup),
    });
    const tpm = ('tpm' in ep ? ep.tpm : undefined) ?? setup.tpm;
    const rpm = ('rpm' in ep ? ep.rpm : undefined) ?? setup.rpm;
    endpoints.push({
      name: one.baseURL ? serverName(one.baseURL) : 'default',
      provider,
      governor: new RateGovernor({ tpm, rpm }),
      ...('weight' in ep && ep.weight ? { weight: ep.weight } : {}),
    });
  }
  const provider = endpoints[0]!.provider;
  const gate = endpoints.length === 1 ? governorGate(endpoints[0]!.governor) : endpointPool(endpoints, o.log);
  const closeAll = async () => {
    for (const e of endpoints) await e.provider.close?.();
  };
  // the first retry of each kind of fault is told at once, the rest once a minute (and at close)
  const retries = o.log ? retryLog(`[${provider.id}]`, o.log) : undefined;
  const retrying = withRetry(
    endpoints.length === 1 ? provider : wrapProvider(provider, (r) => provider.complete(r), closeAll),
    {
      gate,
      retries: setup.retries,
      baseDelayMs: setup.backoffMs,
      timeoutMs: setup.timeoutS * 1000,
      maxRetryMs: setup.retryBudgetS * 1000,
      onRetry: ({ attempt, delayMs, error, retryAfterMs }) =>
        retries?.retry(
          faultKind(error),
          `retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s: ${error.message}${retryAfterMs !== undefined ? ` (the server asked to wait ${(retryAfterMs / 1000).toFixed(1)} s: Retry-After)` : ''}`,
        ),
    },
  );
  const judge = stopOnFatal(retrying, o.onFatal ?? (() => {}));
  const first = provider as JudgeProvider & { listModels?(signal?: AbortSignal): Promise<ListedModel[]> };
  const retirement = async (now = Date.now()) => {
    if (!setup.id.startsWith('openai/')) return undefined;
    // a dry run calls no server: only the table says
    const listed =
      first.listModels && !o.planOnly
        ? await first.listModels(AbortSignal.timeout(10_000)).catch(() => undefined)
        : undefined;
    const isOpenAi = isOpenAI(setup.baseURL ?? setup.endpoints?.[0]?.baseURL);
    return retirementOf(setup.id, setup.id.slice('openai/'.length), listed, isOpenAi, now);
  };
  const close = judge.close?.bind(judge);
  return Object.assign(judge, {
    retirement,
    close: async () => {
      retries?.flush();
      await close?.();
    },
    tokensCharged: () => endpoints.reduce((s, e) => s + e.governor.stats.tokensCharged, 0),
    limits: () => {
      const each = endpoints.map((e) => e.governor.limits());
      const sum = (k: 'tpm' | 'rpm') =>
        each.every((l) => l[k] !== undefined) ? each.reduce((s, l) => s + l[k]!, 0) : undefined;
      const tpm = sum('tpm');
      const rpm = sum('rpm');
      return { ...(tpm ? { tpm } : {}), ...(rpm ? { rpm } : {}) };
    },
  });
}
