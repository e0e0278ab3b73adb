/**
 * A real HTTP server speaking enough of the OpenAI API for the `openai` SDK, with deterministic verdicts, fixed
 * latency and scheduled faults; every request is logged (in memory, and to `logFile`), so a test can count calls
 * even after it SIGKILLed the client. In a process of its own: spawnOpenAIServer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { batchRoutes, type BatchServerOptions } from './openai-batch.ts';
import { cachedTokens, checkRequest, logprobsOf, type ProviderContract } from './openai-contract.ts';
import { seededRng } from '../../src/core/stats/random.ts';

/**
 * How the fake judge decides: `longer` prefers the longer answer (tie when equal), `hash` hashes the prompt, `a` /
 * `b` / `tie` always that, `unparsable` never gives a verdict; single grading gets a rating (length or hash).
 */
export type VerdictPolicy = 'longer' | 'hash' | 'a' | 'b' | 'tie' | 'unparsable';
/** A custom judge: the reply text for one chat request (`n`: its 1-based number). */
export type ReplyFn = (req: { system: string; user: string; n: number }) => string;

/** A fault to inject. A request gets the fault of the first rule that applies to it. */
export interface FaultRule {
  /** HTTP status to answer with, or `hang`: never answer (the client's timeout must fire) */
  status: 429 | 500 | 502 | 503 | 400 | 401 | 'hang';
  /** 429: the Retry-After header, in seconds (default 1) */
  retryAfter?: number;
  /** 429: send `retry-after-ms` with this value instead of Retry-After */
  retryAfterMs?: number;
  /** per prompt: the first `times` requests of each prompt this rule applies to (default: every one) */
  times?: number;
  /** in all: fire at most this many times */
  limit?: number;
  /** only these 1-based request numbers (counted over all chat requests) */
  requests?: number[];
  /** only with this probability per request (seeded by `seed`, so a run is reproducible) */
  probability?: number;
  /** only prompts (system + user) containing this text */
  match?: string;
  /** only prompts with these hashes (see promptHash) */
  hashes?: string[];
}

export interface OpenAIServerOptions {
  /** delay before every answer, in ms (default 0) */
  latencyMs?: number;
  /** a policy, or a function that writes the reply (e.g. a score-based judge with noise and position bias) */
  verdict?: VerdictPolicy | ReplyFn;
  faults?: FaultRule[];
  /** seed for `probability` faults (default 1) */
  seed?: number;
  /** models listed by GET /v1/models (default ["judge"]); chat requests for any model are answered */
  models?: string[];
  /** when set, requests without `Authorization: Bearer <apiKey>` get 401 */
  apiKey?: string;
  /** a careless server: the 401 message echoes the Authorization header it received (the key must not reach `attempts`) */
  echoKey?: boolean;
  /**
   * a hostile server: every reply's content starts with the Authorization header it received (a batch's output
   * lines: the header of the poll that completed the batch)
   */
  echoKeyInReply?: boolean;
  /** append every request as one JSON line to this file (written synchronously, as it arrives) */
  logFile?: string;
  port?: number;
  /**
   * enforce OpenAI-style limits: prompt tokens (characters / 4) plus max_tokens charged on arrival from
   * per-minute buckets, else 429 with retry-after-ms; x-ratelimit-* on chat answers unless `headers` is false
   */
  rateLimit?: {
    tpm?: number;
    rpm?: number;
    headers?: boolean;
    /** the limits' window in ms (default 60,000: per minute); the buckets refill over it, `reset` says so */
    windowMs?: number;
  };
  /** also serve the Batch API (files + batches; tests/support/openai-batch.ts) */
  batch?: BatchServerOptions;
  /** false: replies carry no `usage` (as some OpenAI-compatible servers do); default true */
  usage?: boolean;
  /**
   * hold requests to the provider contract of late 2026 (tests/support/openai-contract.ts): model families and
   * what each refuses, retired models, reasoning tokens, cached tokens, logprobs, structured outputs
   */
  contract?: ProviderContract;
}

export interface RequestLogEntry {
  /** 1-based number among chat requests (0 for other paths) */
  n: number;
  /** arrival time, ms since the epoch (fractional) */
  at: number;
  method: string;
  path: string;
  model?: string;
  /** promptHash(system, user) of a chat request */
  hash?: string;
  /** what was (or will be, after the latency) answered; `hang` never is */
  status: number | 'hang';
  /** with `rateLimit`: the tokens this request was charged (prompt + max_tokens; 0 when refused) */
  charged?: number;
  /** with `rateLimit`: the tokens left in the bucket after this request, as its x-ratelimit headers say */
  left?: number;
  /** the last 4 characters of the request's API key (tells apart clients given different keys) */
  keyTail?: string;
  /** an answered chat request: the tokens its reply's usage counts (sent or not), as the server bills them */
  tokensIn?: number;
  tokensOut?: number;
  /** with `contract`: of tokensIn, those read from cache; of tokensOut, the hidden reasoning ones */
  tokensCached?: number;
  tokensReasoning?: number;
  /** with `contract`: the request's body (what was sent) */
  body?: Record<string, unknown>;
  /**
   * when a chat request's answer (200 or a fault) was sent, ms since the epoch; absent before, for a hang, or
   * with the client gone. Logged as its own `{ n, answeredAt }` line; parseLog folds it into its request.
   */
  answeredAt?: number;
}

export interface OpenAIServer {
  /** base URL for the SDK, ending in /v1 */
  url: string;
  port: number;
  /** every request so far, in arrival order (live) */
  log: RequestLogEntry[];
  /** chat requests answered 200 so far */
  completions(): number;
  close(): Promise<void>;
}

/** The hash the log records for a chat request: SHA-256 of system + "\n\n" + user, first 16 hex digits. */
export function promptHash(system: string, user: string): string {
  return createHash('sha256').update(`${system}\n\n${user}`).digest('hex').slice(0, 16);
}

export async function startOpenAIServer(o: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const log: RequestLogEntry[] = [];
  const faults = o.faults ?? [];
  const perPrompt = faults.map(() => new Map<string, number>());
  const fired = faults.map(() => 0);
  const random = seededRng(o.seed ?? 1);
  const fd = o.logFile ? openSync(o.logFile, 'a') : undefined;
  const timers = new Set<NodeJS.Timeout>();
  let chatN = 0;
  let ok = 0;
  const cacheSeen = new Set<string>();
  const limiter = o.rateLimit ? serverLimiter(o.rateLimit) : undefined;

  const record = (e: RequestLogEntry) => {
    log.push(e);
    if (fd !== undefined) writeSync(fd, `${JSON.stringify(e)}\n`);
    return e;
  };
  const answered = (e: RequestLogEntry) => {
    e.answeredAt = performance.timeOrigin + performance.now();
    if (fd !== undefined) writeSync(fd, `${JSON.stringify({ n: e.n, answeredAt: e.answeredAt })}\n`);
  };

  const pickFault = (n: number, hash: string, prompt: string): FaultRule | undefined => {
    for (let i = 0; i < faults.length; i++) {
      const f = faults[i]!;
      if (f.requests && !f.requests.includes(n)) continue;
      if (f.match !== undefined && !prompt.includes(f.match)) continue;
      if (f.hashes && !f.hashes.includes(hash)) continue;
      if (f.limit !== undefined && fired[i]! >= f.limit) continue;
      const seen = perPrompt[i]!.get(hash) ?? 0;
      if (f.times !== undefined && seen >= f.times) continue;
      if (f.probability !== undefined && random() >= f.probability) continue;
      perPrompt[i]!.set(hash, seen + 1);
      fired[i]!++;
      return f;
    }
    return undefined;
  };

  const later = (fn: () => void, ms: number) => {
    if (ms <= 0) return fn();
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const batch = o.batch
    ? batchRoutes(o.batch, {
        complete: (body, n, authorization) => {
          const system = body.messages
            .filter((m) => m.role === 'system')
            .map((m) => m.content)
            .join('\n');
          const user = body.messages
            .filter((m) => m.role !== 'system')
            .map((m) => m.content)
            .join('\n');
          const c = completion(body.model, system, user, o.verdict ?? 'longer', n);
          if (o.echoKeyInReply) echoKey(c, authorization);
          return { body: c, hash: promptHash(system, user) };
        },
        record,
        send,
        readBody,
      })
    : undefined;
  const server = createServer((req, res) => {
    const at = performance.timeOrigin + performance.now();
    const path = (req.url ?? '/').split('?')[0]!;
    if (o.apiKey !== undefined && req.headers.authorization !== `Bearer ${o.apiKey}`) {
      record({ n: 0, at, method: req.method ?? '', path, status: 401 });
      return send(res, 401, {
        error: {
          message: `Incorrect API key provided${o.echoKey ? `: ${req.headers.authorization ?? '(none)'}` : ''}`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      record({ n: 0, at, method: 'GET', path, status: 200 });
      return send(res, 200, {
        object: 'list',
        data: o.contract
          ? o.contract.models.map((m) => ({
              id: m.id,
              object: 'model',
              created: 0,
              owned_by: 'test',
              ...(m.shutdownDate ? { shutdown_date: m.shutdownDate } : {}),
            }))
          : (o.models ?? ['judge']).map((id) => ({ id, object: 'model', created: 0, owned_by: 'test' })),
      });
    }
    if (batch?.(req, res, path)) return;
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      record({ n: 0, at, method: req.method ?? '', path, status: 404 });
      return send(res, 404, {
        error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' },
      });
    }
    readBody(req).then(
      (raw) => {
        const n = ++chatN;
        let body: { model?: unknown; messages?: { role: string; content: string }[] };
        try {
          body = JSON.parse(raw);
        } catch {
          record({ n, at, method: 'POST', path, status: 400 });
          return send(res, 400, {
            error: { message: 'the body is not JSON', type: 'invalid_request_error' },
          });
        }
        if (typeof body.model !== 'string' || !Array.isArray(body.messages) || !body.messages.length) {
          record({ n, at, method: 'POST', path, status: 400 });
          return send(res, 400, {
            error: { message: 'model and messages are required', type: 'invalid_request_error' },
          });
        }
        const system = body.messages
          .filter((m) => m.role === 'system')
          .map((m) => m.content)
          .join('\n');
        const user = body.messages
          .filter((m) => m.role !== 'system')
          .map((m) => m.content)
          .join('\n');
        const hash = promptHash(system, user);
        const contract = o.contract ? checkRequest(o.contract, body as Record<string, unknown>) : undefined;
        if (contract && 'error' in contract) {
          record({
            n,
            at,
            method: 'POST',
            path,
            model: body.model,
            hash,
            status: contract.status,
            body: body as Record<string, unknown>,
          });
          return send(res, contract.status, { error: contract.error });
        }
        const maxTokens = Number((body as { max_tokens?: unknown }).max_tokens) || 0;
        const cost = Math.ceil((system.length + user.length) / 4) + maxTokens;
        const limited = limiter?.charge(cost);
        const seen = {
          ...(limited ? { left: limited.left } : {}),
          ...(req.headers.authorization ? { keyTail: req.headers.authorization.slice(-4) } : {}),
        };
        if (limited?.retryAfterMs !== undefined) {
          record({ n, at, method: 'POST', path, model: body.model, hash, status: 429, charged: 0, ...seen });
          return send(
            res,
            429,
            {
              error: {
                message: 'Rate limit reached for tokens',
                type: 'tokens',
                code: 'rate_limit_exceeded',
              },
            },
            { ...limited.headers, 'retry-after-ms': String(Math.ceil(limited.retryAfterMs)) },
          );
        }
        const fault = pickFault(n, hash, `${system}\n\n${user}`);
        const status = fault ? fault.status : 200;
        const c = status === 200 ? completion(body.model, system, user, o.verdict ?? 'longer', n) : undefined;
        if (c && contract) applyContract(o.contract!, contract, c, `${system}\n\n${user}`, cacheSeen, hash);
        const entry = record({
          n,
          at,
          method: 'POST',
          path,
          model: body.model,
          hash,
          status,
          ...(limited ? { charged: cost } : {}),
          ...seen,
          ...(c ? { tokensIn: c.usage.prompt_tokens, tokensOut: c.usage.completion_tokens } : {}),
          ...(c && contract
            ? {
                tokensCached: c.usage.prompt_tokens_details?.cached_tokens ?? 0,
                tokensReasoning: c.usage.completion_tokens_details?.reasoning_tokens ?? 0,
                body: body as Record<string, unknown>,
              }
            : {}),
        });
        if (status === 'hang') return; // the socket stays open until the client gives up or close()
        later(() => {
          if (res.destroyed) return;
          if (c) {
            ok++;
            if (o.echoKeyInReply) echoKey(c, req.headers.authorization);
            send(res, 200, o.usage === false ? { ...c, usage: undefined } : c, limited?.headers);
            return answered(entry);
          }
          const headers: Record<string, string> =
            status !== 429
              ? {}
              : fault!.retryAfterMs !== undefined
                ? { 'retry-after-ms': String(fault!.retryAfterMs) }
                : { 'retry-after': String(fault!.retryAfter ?? 1) };
          send(
            res,
            status,
            {
              error: {
                message: `injected fault ${status}`,
                type:
                  status === 429
                    ? 'rate_limit_error'
                    : status >= 500
                      ? 'server_error'
                      : 'invalid_request_error',
              },
            },
            headers,
          );
          answered(entry);
        }, o.latencyMs ?? 0);
      },
      () => res.destroy(),
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    log,
    completions: () => ok,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      if (fd !== undefined) closeSync(fd);
    },
  };
}

/** Go-style duration, as OpenAI writes x-ratelimit-reset-*: `6m0s`, `1.5s`, `20ms`. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const m = Math.floor(ms / 60_000);
  const s = Number(((ms - m * 60_000) / 1000).toFixed(3));
  return m ? `${m}m${s}s` : `${s}s`;
}

/** The server's own buckets (what a real provider enforces), with the headers it announces them in. */
function serverLimiter(o: NonNullable<OpenAIServerOptions['rateLimit']>) {
  const now = () => performance.now();
  const windowMs = o.windowMs ?? 60_000;
  const buckets = (['tokens', 'requests'] as const)
    .map((kind) => ({ kind, perMin: kind === 'tokens' ? o.tpm : o.rpm }))
    .filter((b): b is { kind: 'tokens' | 'requests'; perMin: number } => !!b.perMin)
    .map((b) => ({ ...b, level: b.perMin, at: now() }));
  const refill = (b: (typeof buckets)[number], t: number) => {
    b.level = Math.min(b.perMin, b.level + ((t - b.at) * b.perMin) / windowMs);
    b.at = t;
  };
  return {
    charge(tokens: number): { retryAfterMs?: number; headers: Record<string, string>; left: number } {
      const t = now();
      let wait = 0;
      for (const b of buckets) {
        refill(b, t);
        const need = (b.kind === 'tokens' ? tokens : 1) - b.level;
        if (need > 0) wait = Math.max(wait, (need * windowMs) / b.perMin);
      }
      if (!wait) for (const b of buckets) b.level -= b.kind === 'tokens' ? tokens : 1;
      const headers: Record<string, string> = {};
      if (o.headers !== false)
        for (const b of buckets) {
          headers[`x-ratelimit-limit-${b.kind}`] = String(b.perMin);
          headers[`x-ratelimit-remaining-${b.kind}`] = String(Math.max(0, Math.floor(b.level)));
          headers[`x-ratelimit-reset-${b.kind}`] = goDuration(((b.perMin - b.level) * windowMs) / b.perMin);
        }
      const left = Math.max(0, Math.floor(buckets.find((b) => b.kind === 'tokens')?.level ?? 0));
      return wait ? { retryAfterMs: wait, headers, left } : { headers, left };
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const data = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(data),
    ...headers,
  });
  res.end(data);
}

/** a hostile server's reply: its content starts with the Authorization header it received */
function echoKey(c: ReturnType<typeof completion>, authorization: string | undefined): void {
  c.choices[0]!.message.content = `You sent Authorization: ${authorization ?? '(none)'}\n${c.choices[0]!.message.content}`;
}

/** A completion made to the contract: a constrained reply, reasoning tokens (all of them when they take the allowance), cache, logprobs. */
function applyContract(
  contract: ProviderContract,
  v: Extract<ReturnType<typeof checkRequest>, { status: 200 }>,
  c: ReturnType<typeof completion>,
  prompt: string,
  seen: Set<string>,
  hash: string,
): void {
  const choice = c.choices[0]!;
  let content = choice.message.content;
  if (v.choices) content = v.choices.find((x) => content.endsWith(x)) ?? v.choices[0]!;
  const visible = Math.ceil(content.length / 4);
  const cut = v.maxTokens !== undefined && v.reasoning + visible > v.maxTokens;
  const reasoning = cut ? Math.min(v.reasoning, v.maxTokens!) : v.reasoning;
  if (cut) {
    content = '';
    choice.finish_reason = 'length';
  }
  choice.message.content = content;
  const out = cut ? v.maxTokens! : visible + reasoning;
  const cached = cachedTokens(contract, prompt, seen);
  c.usage = {
    ...c.usage,
    completion_tokens: out,
    total_tokens: c.usage.prompt_tokens + out,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
  if (v.logprobs !== undefined && content)
    (choice as { logprobs: unknown }).logprobs = { content: logprobsOf(content, v.logprobs, hash) };
}

function completion(model: string, system: string, user: string, policy: VerdictPolicy | ReplyFn, n: number) {
  const content =
    typeof policy === 'function' ? policy({ system, user, n }) : judgeText(system, user, policy);
  const promptTokens = Math.ceil((system.length + user.length) / 4);
  const completionTokens = Math.ceil(content.length / 4);
  return {
    id: `chatcmpl-test-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    } as {
      prompt_tokens: number;
      completion_tokens: number;
      total_tokens: number;
      prompt_tokens_details?: { cached_tokens: number };
      completion_tokens_details?: { reasoning_tokens: number };
    },
  };
}

/** The fake judge's reply: a short explanation, then the verdict (or the rating) last. */
export function judgeText(system: string, user: string, policy: VerdictPolicy): string {
  const h = fnv1a(`${system}\n\n${user}`);
  if (`${system}\n${user}`.includes('[[rating]]')) {
    if (policy === 'unparsable') return 'The answer is fine.';
    const answer = section(user, 'A');
    const rating = policy === 'longer' ? Math.min(10, 1 + Math.floor(answer.length / 200)) : 1 + (h % 10);
    return `The assistant's answer is ${answer.length} characters long. Rating: [[${rating}]]`;
  }
  const a = section(user, 'A');
  const b = section(user, 'B');
  const explain = `Assistant A wrote ${a.length} characters and Assistant B wrote ${b.length}.`;
  switch (policy) {
    case 'a':
      return `${explain} Assistant A is better. [[A]]`;
    case 'b':
      return `${explain} Assistant B is better. [[B]]`;
    case 'tie':
      return `${explain} Both are equally good. [[C]]`;
    case 'unparsable':
      return `${explain} Both have merit.`;
    case 'hash':
      return `${explain} My verdict: ${['[[A]]', '[[B]]', '[[C]]'][h % 3]}`;
    case 'longer':
      return `${explain} The longer answer is more detailed. ${a.length === b.length ? '[[C]]' : a.length > b.length ? '[[A]]' : '[[B]]'}`;
  }
}

/** The text of Assistant X's answer or conversation between FastChat's start and end markers. */
function section(user: string, x: 'A' | 'B'): string {
  let start = user.indexOf(`Start of Assistant ${x}'s`);
  if (start < 0 && x === 'A') start = user.indexOf("Start of Assistant's"); // single grading, turn 1
  const endMark = user.startsWith("Start of Assistant's", start)
    ? "End of Assistant's"
    : `End of Assistant ${x}'s`;
  if (start < 0) return '';
  const from = user.indexOf('\n', start);
  const end = from < 0 ? -1 : user.indexOf(endMark, from);
  return end < 0 ? '' : user.slice(from + 1, Math.max(from + 1, user.lastIndexOf('\n', end)));
}

function fnv1a(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A log file's entries in arrival order, each `{ n, answeredAt }` line folded into its request's. */
export function parseLog(text: string): RequestLogEntry[] {
  const entries: RequestLogEntry[] = [];
  const chat = new Map<number, RequestLogEntry>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as RequestLogEntry | { n: number; answeredAt: number };
    if (!('path' in e)) {
      const req = chat.get(e.n);
      if (req) req.answeredAt = e.answeredAt;
      continue;
    }
    entries.push(e);
    if (e.n) chat.set(e.n, e);
  }
  return entries;
}

/** The same server in a child process (so the process under test can be SIGKILLed, or measured alone). */
export interface SpawnedOpenAIServer {
  url: string;
  child: ChildProcess;
  logFile: string;
  /** the request log as the child wrote it so far */
  readLog(): RequestLogEntry[];
  close(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('./openai-server-main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url)); // where `--import tsx` resolves

/**
 * Under vitest, openai-server-main.ts bundled once per run into a plain module that node starts without tsx
 * (0.4 s of CPU per start instead of 1.2 s); elsewhere (bench/), through tsx.
 */
async function serverEntry(): Promise<string[]> {
  if (!process.env.VITEST) return ['--import', 'tsx', MAIN];
  const { runShared } = await import('./run-shared.ts');
  const dir = await runShared('openai-server', async (scratch) => {
    const { createRequire } = await import('node:module');
    const req = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'));
    const esbuild = req('esbuild') as typeof import('esbuild');
    await esbuild.build({
      entryPoints: [MAIN],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: join(scratch, 'openai-server.mjs'),
      logLevel: 'error',
    });
  });
  return [join(dir, 'openai-server.mjs')];
}

/** Start tests/support/openai-server-main.ts with these options; `logFile` is required (it is how the log is read). */
export async function spawnOpenAIServer(
  o: OpenAIServerOptions & { logFile: string },
): Promise<SpawnedOpenAIServer> {
  const child = spawn(process.execPath, [...(await serverEntry()), JSON.stringify(o)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = out.match(/^listening (\S+)\n/m);
      if (m) {
        child.stdout!.off('data', onData);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`[openai-server] exited with code ${code} before listening`)),
    );
    child.once('error', reject);
  });
  return {
    url,
    child,
    logFile: o.logFile,
    readLog: () => (existsSync(o.logFile) ? parseLog(readFileSync(o.logFile, 'utf8')) : []),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
