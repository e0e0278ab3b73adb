// The OpenAI-compatible test server other tests rely on: its fault schedule, verdicts and request log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tmpDir } from './cli.ts';
import {
  judgeText,
  parseLog,
  promptHash,
  startOpenAIServer,
  type OpenAIServer,
  type OpenAIServerOptions,
} from './openai-server.ts';

let servers: OpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
async function serve(o: OpenAIServerOptions = {}) {
  const s = await startOpenAIServer(o);
  servers.push(s);
  return s;
}

const pair = (a: string, b: string) =>
  `[Question]\nQ\n\n[The Start of Assistant A's Answer]\n${a}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n${b}\n[The End of Assistant B's Answer]`;

async function chat(srv: OpenAIServer, user: string, init: RequestInit = {}) {
  const r = await fetch(`${srv.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'm',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: user },
      ],
    }),
    ...init,
  });
  const body = (await r.json()) as {
    choices?: { message: { content: string } }[];
    usage?: { prompt_tokens: number; completion_tokens: number };
  };
  return {
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    text: body.choices?.[0]?.message.content,
    usage: body.usage,
  };
}

describe('OpenAI-compatible test server', () => {
  it('faults by request number', async () => {
    const srv = await serve({ faults: [{ status: 500, requests: [2, 3] }] });
    const got = [];
    for (let i = 0; i < 4; i++) got.push((await chat(srv, `p${i}`)).status);
    expect(got).toEqual([200, 500, 500, 200]);
    expect(srv.log.map((e) => [e.n, e.status])).toEqual([
      [1, 200],
      [2, 500],
      [3, 500],
      [4, 200],
    ]);
  });

  it('faults the first N requests of each prompt, with Retry-After, and in order of the rules', async () => {
    const srv = await serve({
      faults: [
        { status: 429, retryAfter: 2.5, times: 2 },
        { status: 503, times: 1 },
      ],
    });
    const x = [];
    for (let i = 0; i < 5; i++) x.push(await chat(srv, 'X'));
    expect(x.map((r) => r.status)).toEqual([429, 429, 503, 200, 200]);
    expect(x[0]!.retryAfter).toBe('2.5');
    expect((await chat(srv, 'Y')).status).toBe(429); // another prompt has its own count
  });

  it('limits a rule in all, matches on prompt text or hash', async () => {
    const srv = await serve({
      faults: [
        { status: 500, limit: 1 },
        { status: 401, match: 'secret' },
        { status: 400, hashes: [promptHash('sys', 'H')] },
      ],
    });
    expect((await chat(srv, 'a')).status).toBe(500);
    expect((await chat(srv, 'a')).status).toBe(200);
    expect((await chat(srv, 'the secret word')).status).toBe(401);
    expect((await chat(srv, 'H')).status).toBe(400);
    expect((await chat(srv, 'h')).status).toBe(200);
  });

  it('draws probability faults from its seed: reproducible, about as often as asked', async () => {
    const statuses = async (seed: number) => {
      const srv = await serve({ seed, faults: [{ status: 500, probability: 0.3 }] });
      const out: number[] = [];
      for (let i = 0; i < 100; i++) out.push((await chat(srv, `p${i}`)).status);
      return out;
    };
    const a = await statuses(3);
    expect(await statuses(3)).toEqual(a);
    expect(await statuses(4)).not.toEqual(a);
    const n = a.filter((s) => s === 500).length;
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(50);
  });

  it('hangs: never answers until the client gives up, and close() does not wait for it', async () => {
    const srv = await serve({ faults: [{ status: 'hang' }] });
    const ctl = new AbortController();
    const call = chat(srv, 'x', { signal: ctl.signal });
    await new Promise((r) => setTimeout(r, 300));
    expect(srv.log.map((e) => e.status)).toEqual(['hang']);
    ctl.abort();
    await expect(call).rejects.toThrow();
    const pending = chat(srv, 'y').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await srv.close();
    servers = [];
    expect(await pending).toBeInstanceOf(Error);
  });

  it('answers with a short explanation and the verdict last, per policy', async () => {
    expect(judgeText('s', pair('long answer', 'short'), 'longer')).toMatch(/\[\[A\]\]$/);
    expect(judgeText('s', pair('short', 'long answer'), 'longer')).toMatch(/\[\[B\]\]$/);
    expect(judgeText('s', pair('same', 'same'), 'longer')).toMatch(/\[\[C\]\]$/);
    expect(judgeText('s', pair('short', 'long answer'), 'a')).toMatch(/\[\[A\]\]$/);
    expect(judgeText('s', pair('x', 'y'), 'b')).toMatch(/\[\[B\]\]$/);
    expect(judgeText('s', pair('x', 'y'), 'tie')).toMatch(/\[\[C\]\]$/);
    expect(judgeText('s', pair('x', 'y'), 'unparsable')).not.toMatch(/\[\[/);
    const hashed = new Set(
      Array.from({ length: 30 }, (_, i) => judgeText('s', pair(`a${i}`, 'b'), 'hash').slice(-5)),
    );
    expect(hashed).toEqual(new Set(['[[A]]', '[[B]]', '[[C]]']));
    // single grading: a rating, from the answer's length under `longer`
    const single = `[Question]\nQ\n\n[The Start of Assistant's Answer]\n${'x'.repeat(450)}\n[The End of Assistant's Answer]`;
    expect(judgeText('Rate it as "[[rating]]".', single, 'longer')).toMatch(/Rating: \[\[3\]\]$/);
  });

  it('serves the SDK shape, token usage and /v1/models; refuses bad requests clearly', async () => {
    const srv = await serve({ models: ['a', 'b'] });
    const r = await chat(srv, pair('long answer', 'x'));
    expect(r.text).toMatch(/\[\[A\]\]$/);
    expect(r.usage).toEqual({
      prompt_tokens: Math.ceil(('sys'.length + pair('long answer', 'x').length) / 4),
      completion_tokens: Math.ceil(r.text!.length / 4),
      total_tokens: expect.any(Number),
    });
    expect(await (await fetch(`${srv.url}/models`)).json()).toMatchObject({
      object: 'list',
      data: [{ id: 'a' }, { id: 'b' }],
    });
    expect((await fetch(`${srv.url}/chat/completions`, { method: 'POST', body: 'not json' })).status).toBe(
      400,
    );
    expect(
      (await fetch(`${srv.url}/chat/completions`, { method: 'POST', body: '{"model":"m"}' })).status,
    ).toBe(400);
    expect((await fetch(`${srv.url}/nothing`)).status).toBe(404);
  });

  it('writes the request log as JSONL, as it arrives, when given a file', async () => {
    const file = join(tmpDir('openai-server-'), 'log.jsonl');
    const srv = await serve({ logFile: file, latencyMs: 30 });
    await chat(srv, 'one');
    await chat(srv, 'two');
    const lines = parseLog(readFileSync(file, 'utf8'));
    expect(lines).toEqual(JSON.parse(JSON.stringify(srv.log)));
    expect(lines.map((e) => e.hash)).toEqual([promptHash('sys', 'one'), promptHash('sys', 'two')]);
    // Node runs a timer against the event loop's clock, read when the loop last woke, so a 30 ms latency can end
    // up to 1 ms before 30 ms have passed since `at` (taken later in that turn of the loop): 29.5 ms was seen
    expect(lines[1]!.at - lines[0]!.at).toBeGreaterThanOrEqual(29); // the second came after the first's latency
    // each answer's time: after its latency, and before the next request (the client waited for it)
    for (const e of lines) expect(e.answeredAt! - e.at).toBeGreaterThanOrEqual(29);
    expect(lines[0]!.answeredAt).toBeLessThanOrEqual(lines[1]!.at);
  });
});
