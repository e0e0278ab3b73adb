// The rate governor and several endpoints through openJudge, against the test server enforcing an OpenAI-style
// token limit (429 + retry-after-ms, x-ratelimit-* headers), a dead server, and one answering 500s.
import { afterEach, describe, expect, it } from 'vitest';
import { judgeSetupOf } from '../../src/cli/judge-args.ts';
import { JudgeSetup, openJudge } from '../../src/judges/registry.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { freePort } from '../support/port.ts';

const open: OpenAIServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
const serve = async (o: Parameters<typeof startOpenAIServer>[0]) => {
  const s = await startOpenAIServer(o);
  open.push(s);
  return s;
};
/** 50 prompt tokens (200 characters) + 50 max_tokens = 100 tokens, as the server charges */
const req = (i: number) => ({
  system: 's'.repeat(100),
  user: `${String(i).padStart(4, '0')}${'u'.repeat(96)}`,
  temperature: 0,
  maxTokens: 50,
});

describe('one endpoint with a token limit', () => {
  it('plays every call at the limit’s pace with no more than one 429, learning the limit from the headers', async () => {
    const srv = await serve({ rateLimit: { tpm: 6000 }, latencyMs: 20 });
    const judge = await openJudge(
      JudgeSetup.parse({ id: 'openai/judge', baseURL: srv.url, backoffMs: 10 }),
      {},
    );
    const t0 = performance.now();
    // 61 calls of 100 tokens against a bucket of 6000 refilled at 100 tokens/s: the limit's minimum is 1 s
    const replies = await Promise.all(Array.from({ length: 61 }, (_, i) => judge.complete(req(i))));
    const wall = performance.now() - t0;
    expect(replies).toHaveLength(61);
    const chats = srv.log.filter((e) => e.path === '/v1/chat/completions');
    expect(chats.filter((e) => e.status === 429).length).toBeLessThanOrEqual(1);
    expect(srv.completions()).toBe(61);
    expect(wall).toBeGreaterThan(950);
    expect(wall).toBeLessThan(15_000); // only a sanity bound: the pace itself is measured by bench/ratelimit.ts
  });

  it('with no headers, declared --tpm keeps the bucket', async () => {
    const srv = await serve({ rateLimit: { tpm: 6000, headers: false } });
    const judge = await openJudge(
      judgeSetupOf('openai/judge', { 'base-url': srv.url, tpm: '6000', backoff: '10' }),
      {},
    );
    await Promise.all(Array.from({ length: 61 }, (_, i) => judge.complete(req(i))));
    const chats = srv.log.filter((e) => e.path === '/v1/chat/completions');
    expect(chats.filter((e) => e.status === 429).length).toBeLessThanOrEqual(1);
  });

  it('a 429 is waited out and not counted against the retries (retries 0)', async () => {
    const srv = await serve({
      rateLimit: { tpm: 6000 },
      faults: [{ status: 429, retryAfter: 0.2, limit: 3 }],
    });
    const judge = await openJudge(
      JudgeSetup.parse({ id: 'openai/judge', baseURL: srv.url, retries: 0, retryBudgetS: 5 }),
      {},
    );
    const r = await judge.complete(req(1));
    expect(r.text).toMatch(/\[\[/);
    expect(srv.log.filter((e) => e.status === 429)).toHaveLength(3);
  });
});

describe('several endpoints for one judge', () => {
  it('goes on on the live one when one is dead and one answers 500s, and names the endpoint that answered', async () => {
    const good = await serve({ latencyMs: 5 });
    const failing = await serve({ faults: [{ status: 500 }] });
    const dead = `http://127.0.0.1:${await freePort()}/v1`;
    const lines: string[] = [];
    const setup = judgeSetupOf('openai/judge', {
      'base-url': `${dead},${failing.url},${good.url}`,
      backoff: '5',
    });
    expect(setup.endpoints).toHaveLength(3);
    const judge = await openJudge(setup, {}, { log: (l) => lines.push(l) });
    expect(judge.id).toBe('openai/judge');
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => judge.complete(req(i))));
    expect(new Set(replies.map((r) => r.endpoint))).toEqual(new Set([good.url]));
    expect(good.completions()).toBe(30);
    // each bad endpoint was taken out once after its faults in a row, and then left alone: only the calls sent to it
    // before that (a third of the first 30, and their retries) reached it
    expect(failing.log.filter((e) => e.status === 500).length).toBeLessThanOrEqual(20);
    expect(lines.filter((l) => l.includes('taken out'))).toHaveLength(2);
  });

  it('spreads calls over endpoints with their own limits', async () => {
    const a = await serve({ rateLimit: { tpm: 6000 } });
    const b = await serve({ rateLimit: { tpm: 6000 } });
    const judge = await openJudge(judgeSetupOf('openai/judge', { 'base-url': `${a.url},${b.url}` }), {});
    const t0 = performance.now();
    // 122 calls of 100 tokens against two buckets of 6000: the combined limits' minimum is 1 s
    await Promise.all(Array.from({ length: 122 }, (_, i) => judge.complete(req(i))));
    const wall = performance.now() - t0;
    expect(wall).toBeGreaterThan(950);
    expect(wall).toBeLessThan(15_000); // only a sanity bound: the pace itself is measured by bench/ratelimit.ts
    expect(a.completions() + b.completions()).toBe(122);
    expect(Math.min(a.completions(), b.completions())).toBeGreaterThanOrEqual(60);
    for (const s of [a, b]) expect(s.log.filter((e) => e.status === 429).length).toBeLessThanOrEqual(1);
  });
});
