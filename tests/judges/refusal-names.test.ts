// A refused key names the variable it came from and the server that refused it (issue 35, item 9): an endpoint
// with its own apiKeyEnv is not blamed on OPENAI_API_KEY; a connection error names the server it could not reach.
import { describe, expect, it } from 'vitest';
import { JudgeSetup, openJudge } from '../../src/judges/registry.ts';
import { startOpenAIServer } from '../support/openai-server.ts';

const ask = { system: 's', user: 'u', temperature: 0, maxTokens: 16 };

describe('a refusal names its key and its server', { timeout: 60_000 }, () => {
  it("a 401 from an endpoint with its own apiKeyEnv names that variable and the endpoint's URL", async () => {
    const srv = await startOpenAIServer({ apiKey: 'sk-right' });
    try {
      const setup = JudgeSetup.parse({
        id: 'openai/judge',
        endpoints: [{ baseURL: srv.url, apiKeyEnv: 'KEY_ONE' }],
      });
      const judge = await openJudge(setup, { KEY_ONE: 'sk-wrong', OPENAI_API_KEY: 'sk-other' });
      const e = (await judge.complete(ask).catch((x: unknown) => x)) as Error;
      expect(e.message).toMatch(/HTTP 401/);
      expect(e.message).toContain(`${srv.url} refused the API key in KEY_ONE`);
      expect(e.message).not.toContain('OPENAI_API_KEY');
      await judge.close?.();
    } finally {
      await srv.close();
    }
  });

  it('a connection error names the server it could not reach', async () => {
    const srv = await startOpenAIServer();
    const url = srv.url;
    await srv.close();
    const judge = await openJudge(JudgeSetup.parse({ id: 'openai/judge', baseURL: url, retries: 0 }), {});
    const e = (await judge.complete(ask).catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(/connection failed/);
    expect(e.message).toContain(url);
    await judge.close?.();
  });
});
