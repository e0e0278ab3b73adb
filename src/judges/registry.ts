import { pick } from '../core/pick.ts';
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
import { withRetry } from './retry.ts';
import { serverName } from './redact.ts';
import { faultKind, retryLog } from './retry-log.ts';

export interface JudgeOptions {
  baseURL?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  api?: ApiOptions;
}

/**
 * A provider from its "provider/model" name. Providers are loaded lazily, so a run with the
 * mock judge never loads the OpenAI SDK (and nothing pays for native modules it does not use).
 */
export async function createJudge(spec: string, o: JudgeOptions = {}): Promise<JudgeProvider> {
  const slash = spec.indexOf('/');
  const provider = slash < 0 ? spec : spec.slice(0, slash);
  const model = slash < 0 ? '' : spec.slice(slash + 1);
  if (!model)
    throw new ArenaError(`[judge] "${spec}": expected provider/model, e.g. openai/gpt-4 or mock/random`);
  switch (provider) {
    case 'openai': {
      const { openaiJudge } = await import('./openai.ts');
      return openaiJudge({ model, ...pick(o, ['baseURL', 'apiKey', 'apiKeyEnv', 'api']) });
    }
    case 'llama-cpp': {
      // the native module is loaded only here, and only when a llama-cpp judge is asked for
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
  /**
   * when the model stops being served: the server's shutdown_date (GET /v1/models, asked once, 10 s at most; a
   * server that cannot say is no error), else the table's for OpenAI's own API; undefined when neither says
   */
  retirement(now?: number): Promise<Retirement | undefined>;
  /** the tokens charged so far as a limit counts them (prompt + max_tokens per call sent) */
  tokensCharged(): number;
};

export interface OpenJudgeOptions {
  /** told of each retry, as one line (`[openai/gpt-4] retry 1 in 1.0 s: ...`) */
  log?(line: string): void;
  /**
   * told once of the first fatal refusal (401/403, a retired model, a refused parameter): the caller stops its run (abort its signal). After it no call reaches the
   * server; calls fail with the same error.
   */
  onFatal?(e: JudgeCallError): void;
  /** no call will be made (a dry run): the API key is not required */
  planOnly?: boolean;
}

/**
 * The judge's API key from `env`, checked before anything starts: a variable named on purpose (apiKeyEnv) must be
 * set; the default one (OPENAI_API_KEY) only when OpenAI itself would be called (an openai judge with no baseURL),
 * which would refuse every call.
 */
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

/**
 * What a judge sends for the asked settings, known without opening it (a dry run's plan): an OpenAI-compatible judge's
 * (judges/contract.ts); undefined for other providers (as asked, temperature 0).
 */
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

/**
 * The one API-key check: every endpoint of every judge has its key in `env` (see apiKeyOf). openJudge runs it
 * for the judge it opens; the CLI and the ops jobs run it first, so that a missing key is said before a
 * database is opened or anything imported or generated.
 */
export function checkApiKeys(setups: Iterable<JudgeSetup>, env: Record<string, string | undefined>): void {
  for (const setup of setups) for (const { one } of endpointSetups(setup)) apiKeyOf(one, env);
}

/**
 * The one way a judge is set up: the provider, with its API key read from `env`, checked before anything starts
 * (an OpenAI judge with no key and no baseURL would be refused every call), wrapped with timeouts and retries, and
 * stopped at the first refused key. `arena run`, `calibrate`, escalation, refresh and checkpoints all call this.
 */
export async function openJudge(
  setup: JudgeSetup,
  env: Record<string, string | undefined>,
  o: OpenJudgeOptions = {},
): Promise<GovernedJudge> {
  const log = o.log;
  const endpoints: Endpoint[] = [];
  for (const { ep, one } of endpointSetups(setup)) {
    const apiKey = o.planOnly ? env[one.apiKeyEnv ?? DEFAULT_API_KEY_ENV] || undefined : apiKeyOf(one, env);
    const provider = await createJudge(setup.id, {
      ...(one.baseURL ? { baseURL: one.baseURL } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(one.apiKeyEnv ? { apiKeyEnv: one.apiKeyEnv } : {}),
      api: apiOptionsOf(setup),
    });
    const tpm = ('tpm' in ep ? ep.tpm : undefined) ?? setup.tpm;
    const rpm = ('rpm' in ep ? ep.rpm : undefined) ?? setup.rpm;
    endpoints.push({
      name: one.baseURL ? serverName(one.baseURL) : 'default',
      provider,
      governor: new RateGovernor({ ...(tpm ? { tpm } : {}), ...(rpm ? { rpm } : {}) }),
      ...('weight' in ep && ep.weight ? { weight: ep.weight } : {}),
    });
  }
  const provider = endpoints[0]!.provider;
  const gate =
    endpoints.length === 1
      ? governorGate(endpoints[0]!.governor)
      : endpointPool(endpoints, log ? { log } : {});
  const closeAll = async () => {
    for (const e of endpoints) await e.provider.close?.();
  };
  // the first retry of each kind of fault is told at once, the rest once a minute (and at close)
  const retries = log ? retryLog(`[${provider.id}]`, log) : undefined;
  const retrying = withRetry(
    endpoints.length === 1 ? provider : wrapProvider(provider, (r) => provider.complete(r), closeAll),
    {
      gate,
      retries: setup.retries,
      baseDelayMs: setup.backoffMs,
      timeoutMs: setup.timeoutS * 1000,
      maxRetryMs: setup.retryBudgetS * 1000,
      ...(retries
        ? {
            onRetry: ({ attempt, delayMs, error, retryAfterMs }) =>
              retries.retry(
                faultKind(error),
                `retry ${attempt} in ${(delayMs / 1000).toFixed(1)} s: ${error.message}${retryAfterMs !== undefined ? ` (the server asked to wait ${(retryAfterMs / 1000).toFixed(1)} s: Retry-After)` : ''}`,
              ),
          }
        : {}),
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
    const model = setup.id.slice('openai/'.length);
    return retirementOf(
      setup.id,
      model,
      listed,
      isOpenAI(setup.baseURL ?? setup.endpoints?.[0]?.baseURL),
      now,
    );
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
