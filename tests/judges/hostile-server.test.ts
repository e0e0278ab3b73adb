// A misbehaving judge server (issue #12, items 6, 8, 9): replies of any size, a ten-minute Retry-After, token counts
// that are not counts; raw bytes from a server in this process to the judge `arena run` builds.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES } from '../../src/judges/http-fetch.ts';
import { openaiJudge } from '../../src/judges/openai.ts';
import { withRetry } from '../../src/judges/retry.ts';
import { REPO_ROOT } from '../support/cli.ts';

const REQ = { system: 'Judge.', user: 'A or B?', temperature: 0, maxTokens: 64 };
let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
  servers = [];
});

type Handler = Parameters<typeof createServer>[1];
async function serve(handler: NonNullable<Handler>): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
}

const completion = (content: string, usage: unknown) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
  });

/** A completion whose content is `mb` MiB of 'a', streamed in 64 KiB chunks without a content-length. */
function bigReply(mb: number): NonNullable<Handler> {
  return (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let left = (mb * 1024 * 1024) / chunk.length;
    res.write(
      '{"id":"c1","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"',
    );
    const more = () => {
      while (left > 0) {
        left--;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end('[[A]]"},"finish_reason":"stop"}]}');
    };
    res.on('error', () => {});
    more();
  };
}

describe('a hostile judge server', () => {
  it(`a reply body over ${MAX_REPLY_BYTES / 1024 / 1024} MiB fails the call (not retried, never a verdict) without reading it whole`, async () => {
    const url = await serve(bigReply(64));
    let retried = 0;
    const judge = withRetry(openaiJudge({ model: 'm', baseURL: url }), {
      baseDelayMs: 10,
      onRetry: () => retried++,
    });
    await expect(judge.complete(REQ)).rejects.toThrow(/larger than 4194304 bytes/);
    expect(retried).toBe(0);
    // a declared content-length over the cap is refused before any of it is read
    const url2 = await serve((req, res) => {
      req.resume();
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(MAX_REPLY_BYTES + 1),
      });
      res.write('{');
    });
    await expect(
      withRetry(openaiJudge({ model: 'm', baseURL: url2 }), { retries: 0 }).complete(REQ),
    ).rejects.toThrow(/larger than/);
    // a reply under the cap is read as before
    const url3 = await serve(bigReply(1));
    expect((await withRetry(openaiJudge({ model: 'm', baseURL: url3 })).complete(REQ)).text).toHaveLength(
      1024 * 1024 + 5,
    );
  });

  it('two 150 MiB replies: the judge process stays far below their size (peak RSS measured in a child process)', async () => {
    const url = await serve(bigReply(150));
    const code = `
      import { openaiJudge } from './src/judges/openai.ts';
      const j = openaiJudge({ model: 'm', baseURL: ${JSON.stringify(url)} });
      const r = await Promise.allSettled([j.complete(${JSON.stringify(REQ)}), j.complete(${JSON.stringify(REQ)})]);
      // VmHWM: the peak of this process's own memory (resourceUsage's maxRSS carries the forking parent's peak over exec)
      const hwm = Number(/VmHWM:\\s+(\\d+) kB/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1]);
      console.log(JSON.stringify({ maxRssMiB: hwm / 1024, results: r.map((x) => x.status === 'fulfilled' ? x.value.text.length : String(x.reason?.message).slice(0, 200)) }));`;
    const out = await new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let s = '';
      c.stdout.on('data', (d) => (s += d));
      c.on('close', (code) => (code === 0 ? resolve(s) : reject(new Error(`child exited ${code}`))));
    });
    const r = JSON.parse(out.trim().split('\n').pop()!) as {
      maxRssMiB: number;
      results: (string | number)[];
    };
    console.log(
      `two 150 MiB judge replies: peak RSS ${r.maxRssMiB.toFixed(0)} MiB; results ${JSON.stringify(r.results)}`,
    );
    for (const x of r.results) expect(String(x)).toMatch(/larger than/);
    expect(r.maxRssMiB).toBeLessThan(250);
  }, 120_000);

  it("a Retry-After of 600 s does not hold a game past its retry budget; the wait is reported as the server's", async () => {
    let calls = 0;
    const url = await serve((req, res) => {
      req.resume();
      calls++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': calls === 1 ? '1' : '600' });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error' } }));
    });
    const waits: (number | undefined)[] = [];
    const judge = withRetry(openaiJudge({ model: 'm', baseURL: url }), {
      maxRetryMs: 3000,
      onRetry: (i) => waits.push(i.retryAfterMs),
    });
    const t0 = Date.now();
    await expect(judge.complete(REQ)).rejects.toThrow(
      /HTTP 429.*not retried: the server asked to wait 600\.0 s \(Retry-After\), past this call's retry budget of 3 s/,
    );
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(calls).toBe(2);
    expect(waits).toEqual([1000]);
  });

  it('usage that is not a non-negative safe integer is unknown, never summed', async () => {
    const bad: unknown[] = [
      { prompt_tokens: 'lots', completion_tokens: 'lots' },
      { prompt_tokens: 1e300, completion_tokens: -5 },
      { prompt_tokens: 1.5, completion_tokens: null },
      'usage',
      null,
    ];
    let i = 0;
    const url = await serve((req, res) => {
      req.resume();
      const u = i < bad.length ? bad[i++] : { prompt_tokens: 12, completion_tokens: 3 };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion('[[A]]', u));
    });
    const judge = withRetry(openaiJudge({ model: 'm', baseURL: url }));
    for (let k = 0; k < bad.length; k++) {
      const r = await judge.complete(REQ);
      expect(r.text).toBe('[[A]]');
      expect(r.tokensIn, JSON.stringify(bad[k])).toBeUndefined();
      expect(r.tokensOut, JSON.stringify(bad[k])).toBeUndefined();
    }
    const ok = await judge.complete(REQ);
    expect([ok.tokensIn, ok.tokensOut]).toEqual([12, 3]);
  });
});
