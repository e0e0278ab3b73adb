import { afterEach, describe, expect, it } from 'vitest';
import { JudgeCallError, type JudgeProvider } from '../../src/judges/judge.ts';
import { mockJudge } from '../../src/judges/mock.ts';
import { openaiJudge } from '../../src/judges/openai.ts';
import { withRetry, type RetryOptions } from '../../src/judges/retry.ts';
import {
  promptHash,
  startOpenAIServer,
  type OpenAIServer,
  type OpenAIServerOptions,
} from '../support/openai-server.ts';
import { describeJudgeContract } from './judge.contract.ts';

const SYSTEM = 'You are a judge. Reply with [[A]], [[B]] or [[C]].';
const USER =
  "[User Question]\nSay hi.\n\n[The Start of Assistant A's Answer]\nHello there, friend!\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\nhi\n[The End of Assistant B's Answer]";
const REQ = { system: SYSTEM, user: USER, temperature: 0, maxTokens: 64 };

let servers: OpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(o: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const s = await startOpenAIServer(o);
  servers.push(s);
  return s;
}

/** the judge as `arena run` builds it: openai provider + withRetry; retries recorded */
function judgeFor(srv: OpenAIServer, o: RetryOptions & { apiKey?: string } = {}) {
  const retries: { attempt: number; delayMs: number; error: JudgeCallError }[] = [];
  const { apiKey, ...retry } = o;
  const judge = withRetry(
    openaiJudge({ model: 'judge-model', baseURL: srv.url, ...(apiKey ? { apiKey } : {}) }),
    { baseDelayMs: 20, random: () => 1, ...retry, onRetry: (i) => retries.push(i) },
  );
  return { judge, retries };
}

const chats = (s: OpenAIServer) => s.log.filter((e) => e.path === '/v1/chat/completions');

describe('openai judge against the OpenAI-compatible test server', () => {
  it('sends the system and user messages with the model, and returns the text and token usage', async () => {
    const srv = await serve({ verdict: 'longer' });
    const { judge } = judgeFor(srv);
    expect(judge.id).toBe('openai/judge-model');
    const r = await judge.complete(REQ);
    expect(r.text).toMatch(/\[\[A\]\]$/); // A's answer is the longer one
    expect(r.tokensIn).toBe(Math.ceil((SYSTEM.length + USER.length) / 4));
    expect(r.tokensOut).toBe(Math.ceil(r.text.length / 4));
    expect(chats(srv)).toEqual([
      expect.objectContaining({ n: 1, model: 'judge-model', hash: promptHash(SYSTEM, USER), status: 200 }),
    ]);
  });

  it('waits for the Retry-After of a 429 before retrying', async () => {
    const srv = await serve({ faults: [{ status: 429, retryAfter: 1, times: 1 }] });
    const { judge, retries } = judgeFor(srv, { baseDelayMs: 10 });
    const r = await judge.complete(REQ);
    expect(r.text.length).toBeGreaterThan(0);
    const [first, second] = chats(srv);
    expect([first?.status, second?.status]).toEqual([429, 200]);
    expect(retries.map((x) => [x.error.status, x.delayMs])).toEqual([[429, 1000]]);
    const gap = second!.at - first!.at;
    expect(gap).toBeGreaterThanOrEqual(1000);
    expect(gap).toBeLessThan(10_000);
  });

  it('retries 500s with exponential backoff', async () => {
    const srv = await serve({ faults: [{ status: 500, times: 3 }] });
    const { judge, retries } = judgeFor(srv, { baseDelayMs: 40 });
    await judge.complete(REQ);
    const log = chats(srv);
    expect(log.map((e) => e.status)).toEqual([500, 500, 500, 200]);
    expect(retries.map((x) => x.delayMs)).toEqual([40, 80, 160]); // random() = 1: no jitter
    expect(retries.every((x) => x.error.retryable && x.error.status === 500)).toBe(true);
    for (let k = 1; k < log.length; k++)
      expect(log[k]!.at - log[k - 1]!.at).toBeGreaterThanOrEqual(retries[k - 1]!.delayMs);
  });

  it('turns a hang into a timeout and retries it', async () => {
    const srv = await serve({ faults: [{ status: 'hang', times: 1 }] });
    const { judge, retries } = judgeFor(srv, { timeoutMs: 400 });
    const t0 = Date.now();
    const r = await judge.complete(REQ);
    expect(r.text.length).toBeGreaterThan(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
    expect(chats(srv).map((e) => e.status)).toEqual(['hang', 200]);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error.message).toMatch(/timed out after 400 ms/);
  });

  it('fails at once, without retrying, on a 400', async () => {
    const srv = await serve({ faults: [{ status: 400 }] });
    const { judge, retries } = judgeFor(srv);
    const err = await judge.complete(REQ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JudgeCallError);
    expect((err as JudgeCallError).retryable).toBe(false);
    expect((err as JudgeCallError).status).toBe(400);
    expect((err as Error).message).toMatch(/^\[judge:openai\] HTTP 400/);
    expect(chats(srv)).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it('fails at once, without retrying, on a 401 (wrong API key)', async () => {
    const srv = await serve({ apiKey: 'sk-right' });
    const { judge, retries } = judgeFor(srv, { apiKey: 'sk-wrong' });
    const err = await judge.complete(REQ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JudgeCallError);
    expect((err as JudgeCallError).status).toBe(401);
    expect((err as JudgeCallError).retryable).toBe(false);
    expect(srv.log).toHaveLength(1);
    expect(retries).toHaveLength(0);
    // the right key works
    await expect(judgeFor(srv, { apiKey: 'sk-right' }).judge.complete(REQ)).resolves.toMatchObject({
      text: expect.any(String),
    });
  });

  it('throws the last error once the retries are exhausted, never a reply', async () => {
    const srv = await serve({ faults: [{ status: 500 }] });
    const { judge, retries } = judgeFor(srv, { retries: 2, baseDelayMs: 5 });
    const err = await judge.complete(REQ).then(
      (r) => ({ reply: r }),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(JudgeCallError);
    expect((err as JudgeCallError).status).toBe(500);
    expect(chats(srv).map((e) => e.status)).toEqual([500, 500, 500]);
    expect(retries).toHaveLength(2);
    expect(srv.completions()).toBe(0);
  });

  it('gives up on repeated timeouts with a timeout error', async () => {
    const srv = await serve({ faults: [{ status: 'hang' }] });
    const { judge } = judgeFor(srv, { retries: 1, timeoutMs: 200 });
    await expect(judge.complete(REQ)).rejects.toThrow(/timed out after 200 ms/);
    expect(chats(srv).map((e) => e.status)).toEqual(['hang', 'hang']);
  });

  it('stops waiting (during a Retry-After) when the caller aborts', async () => {
    const srv = await serve({ faults: [{ status: 429, retryAfter: 30 }] });
    const { judge } = judgeFor(srv);
    const ctl = new AbortController();
    const t0 = Date.now();
    const call = judge.complete({ ...REQ, signal: ctl.signal });
    setTimeout(() => ctl.abort(new Error('interrupted')), 200);
    await expect(call).rejects.toThrow('interrupted');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(chats(srv)).toHaveLength(1);
  });

  it('retries a refused connection, then throws it as a retryable connection failure', async () => {
    const srv = await startOpenAIServer();
    await srv.close(); // nothing listens on its port any more
    const { judge, retries } = judgeFor(srv, { retries: 2, baseDelayMs: 5 });
    const err = await judge.complete(REQ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JudgeCallError);
    expect((err as JudgeCallError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/^\[judge:openai\] connection failed/);
    expect(retries).toHaveLength(2);
  });

  it('lists the models (GET /v1/models) through the SDK', async () => {
    const srv = await serve({ models: ['judge-a', 'judge-b'] });
    const { default: OpenAI } = await import('openai');
    const client = new OpenAI({ baseURL: srv.url, apiKey: 'sk-none', maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['judge-a', 'judge-b']);
  });
});

describeJudgeContract('mock/random', async () => ({ judge: mockJudge('random') }), { provider: 'mock' });

describeJudgeContract(
  'openai against the test server (with retry)',
  async () => {
    const srv = await startOpenAIServer({ latencyMs: 50, verdict: 'hash' });
    const judge: JudgeProvider = withRetry(openaiJudge({ model: 'judge', baseURL: srv.url }), {
      timeoutMs: 10_000,
    });
    return { judge, close: () => srv.close() };
  },
  { provider: 'openai' },
);
