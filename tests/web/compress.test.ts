// The Node site compresses a page whole by zlib, with its length, not streamed; by hono/compress's rules (encoding
// from Accept-Encoding, Vary, weak ETag, nothing under 1 KiB, nothing on HEAD).
import { gunzipSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { nodeSite } from '../../src/entry/node.ts';
import { openMemoryStore } from '../../src/storage/sqlite.ts';
import { encodingFor } from '../../src/web/compress.ts';
import { ANSWERS, makeGame, PROMPTS, QUESTIONS } from '../storage/contract.ts';

async function site() {
  const store = openMemoryStore();
  await store.importBundle({
    questions: { source: 'q.jsonl', items: QUESTIONS },
    answers: [{ source: 'a.jsonl', items: ANSWERS }],
    prompts: PROMPTS,
    games: [makeGame({ reply: 'A. [[A]]', verdict: 'model_1' })],
  });
  return { store, site: nodeSite({ store, bootstrapRounds: 20 }) };
}
const ask = (s: Awaited<ReturnType<typeof site>>['site'], path: string, init: RequestInit = {}) =>
  s.fetch(new Request(`http://localhost${path}`, init));

describe('compression on Node', () => {
  it('gzip and deflate of whole pages, with their length, a weak ETag and Vary; small bodies and HEAD as they are', async () => {
    const { store, site: s } = await site();
    const plain = await ask(s, '/judges');
    const text = await plain.text();
    expect(text.length).toBeGreaterThan(1024);
    const gz = await ask(s, '/judges', { headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const bytes = Buffer.from(await gz.arrayBuffer());
    // a whole body: its length is known, nothing is streamed
    expect(gz.headers.get('content-length')).toBe(String(bytes.byteLength));
    expect(bytes.byteLength).toBeLessThan(text.length / 2);
    expect(gunzipSync(bytes).toString()).toBe(text);
    expect(gz.headers.get('vary')).toMatch(/Accept-Encoding/);
    expect(gz.headers.get('etag')).toBe(`W/${plain.headers.get('etag')}`);
    expect(gz.headers.get('content-security-policy')).toBe(plain.headers.get('content-security-policy'));
    const df = await ask(s, '/judges', { headers: { 'Accept-Encoding': 'deflate' } });
    expect(df.headers.get('content-encoding')).toBe('deflate');
    expect(inflateSync(Buffer.from(await df.arrayBuffer())).toString()).toBe(text);
    const small = await ask(s, '/robots.txt', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(small.headers.get('content-encoding')).toBeNull();
    const head = await ask(s, '/judges', { method: 'HEAD', headers: { 'Accept-Encoding': 'gzip' } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    await store.close();
  });

  it('picks the encoding as hono/compress does', () => {
    expect(encodingFor(undefined)).toBeUndefined();
    expect(encodingFor('br')).toBeUndefined();
    expect(encodingFor('deflate, gzip')).toBe('gzip');
    expect(encodingFor('gzip;q=0.5, deflate;q=0.8')).toBe('deflate');
    expect(encodingFor('*')).toBe('gzip');
    expect(encodingFor('gzip;q=0, *;q=0.3')).toBe('deflate');
    expect(encodingFor('identity')).toBeUndefined();
  });
});
