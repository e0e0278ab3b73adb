// A Retry-After the server cannot mean (`-5`) is no instruction: the call backs off exponentially as for any
// other fault, rather than retrying at once. Real HTTP to the OpenAI-compatible test server on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/judges/judge.ts';
import { openaiJudge } from '../../src/judges/openai.ts';
import { withRetry } from '../../src/judges/retry.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';

let srv: OpenAIServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('a negative Retry-After', () => {
  it('three 429s with `Retry-After: -5` are retried after 40, 80 and 160 ms of backoff', async () => {
    srv = await startOpenAIServer({ faults: [{ status: 429, retryAfter: -5, times: 3 }] });
    const delays: number[] = [];
    const judge = withRetry(openaiJudge({ model: 'judge', baseURL: srv.url, apiKey: 'k' }), {
      baseDelayMs: 40,
      random: () => 1,
      onRetry: (i) => delays.push(i.delayMs),
    });
    await judge.complete({ system: 's', user: 'u', temperature: 0, maxTokens: 16 });
    expect(delays).toEqual([40, 80, 160]);
    const log = srv.log.filter((e) => e.path === '/v1/chat/completions');
    expect(log.map((e) => e.status)).toEqual([429, 429, 429, 200]);
    for (let k = 1; k < log.length; k++)
      expect(log[k]!.at - log[k - 1]!.at).toBeGreaterThanOrEqual(delays[k - 1]! - 2);
  });

  it('the header forms: seconds and a future date are waits; a negative, a past date or junk are none', () => {
    const h = (o: Record<string, string>) => ({ get: (n: string) => o[n] ?? null });
    const now = Date.parse('Tue, 24 Nov 2026 12:00:00 GMT');
    expect(parseRetryAfter(h({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(h({ 'retry-after': 'Tue, 24 Nov 2026 12:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfter(h({ 'retry-after-ms': '250' }), now)).toBe(250);
    for (const bad of ['-5', '-0.5', 'Tue, 24 Nov 2026 11:59:00 GMT', 'soon', '1e3'])
      expect(parseRetryAfter(h({ 'retry-after': bad }), now), bad).toBeUndefined();
    expect(parseRetryAfter(h({ 'retry-after-ms': '-100' }), now)).toBeUndefined();
  });
});
