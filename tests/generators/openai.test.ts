// The OpenAI-compatible answer generator (src/generators/openai.ts) against our own test server over real HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { ArenaError } from '../../src/core/types.ts';
import { openaiGenerator } from '../../src/generators/openai.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';

let srv: OpenAIServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('openai answer generator', () => {
  it('sends the conversation (user turns and the earlier replies, in order) and returns the reply trimmed', async () => {
    srv = await startOpenAIServer({ verdict: ({ user, n }) => `  reply ${n} to <${user}>\n` });
    const gen = openaiGenerator({ baseURL: srv.url, model: 'ckpt-a', maxTokens: 32 });
    expect(await gen.generate(['Q1'], [], 0.7)).toBe('reply 1 to <Q1>');
    expect(await gen.generate(['Q1', 'Q2'], ['A1'], 0)).toBe('reply 2 to <Q1\nA1\nQ2>');
    expect(srv.log.filter((e) => e.path === '/v1/chat/completions').map((e) => e.model)).toEqual([
      'ckpt-a',
      'ckpt-a',
    ]);
    await gen.close();
  });

  it('retries a transient server error, then answers', async () => {
    srv = await startOpenAIServer({ verdict: () => 'fine', faults: [{ status: 500, limit: 1 }] });
    const gen = openaiGenerator({ baseURL: srv.url, model: 'm', maxTokens: 8 });
    expect(await gen.generate(['Q'], [], 0)).toBe('fine');
    expect(srv.log.map((e) => e.status)).toEqual([500, 200]);
  });

  it('a refused key fails at once with an error naming the server and model, and never the key', async () => {
    srv = await startOpenAIServer({ apiKey: 'sk-right-key-000000', echoKey: true });
    const key = 'sk-wrong-key-123456789';
    const gen = openaiGenerator({ baseURL: srv.url, model: 'ckpt-b', apiKey: key, maxTokens: 8 });
    const e = await gen.generate(['Q'], [], 0).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ArenaError);
    expect((e as Error).message).toContain(`[generator:openai] ${srv.url} ckpt-b: 401`);
    expect((e as Error).message).not.toContain('wrong-key');
    expect(srv.log).toHaveLength(1);
  });
});
