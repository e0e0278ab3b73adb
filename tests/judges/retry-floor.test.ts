// "Retry after 0" (issue 35, item 3): every asked wait has a floor, doubled while refused, so 8 calls in flight
// against an always-429 server send a handful of requests in 10 s, not 12,778. The judge as openJudge opens it.
import { describe, expect, it } from 'vitest';
import { openJudge, JudgeSetup } from '../../src/judges/registry.ts';
import { startOpenAIServer } from '../support/openai-server.ts';

async function requestsIn10s(fault: { retryAfter?: number; retryAfterMs?: number }): Promise<number> {
  const srv = await startOpenAIServer({ faults: [{ status: 429, ...fault }] });
  const judge = await openJudge(JudgeSetup.parse({ id: 'openai/judge', baseURL: srv.url }), {});
  const stop = AbortSignal.timeout(10_000);
  try {
    const call = async () => {
      while (!stop.aborted)
        await judge
          .complete({ system: 's', user: 'u', temperature: 0, maxTokens: 16, signal: stop })
          .catch(() => {});
    };
    await Promise.all(Array.from({ length: 8 }, call));
    return srv.log.filter((e) => e.path === '/v1/chat/completions').length;
  } finally {
    await judge.close?.();
    await srv.close();
  }
}

describe('a floor on the waits a server asks for', { timeout: 60_000 }, () => {
  it('retry-after: 0 and retry-after-ms: 0 get at most 20 requests in 10 s at concurrency 8', async () => {
    const [seconds, ms] = await Promise.all([
      requestsIn10s({ retryAfter: 0 }),
      requestsIn10s({ retryAfterMs: 0 }),
    ]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(20);
    expect(ms).toBeGreaterThanOrEqual(1);
    expect(ms).toBeLessThanOrEqual(20);
  });
});
