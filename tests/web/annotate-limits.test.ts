// Rate limits live in the database: two `arena serve --annotate` processes on one file share an annotator's 30 votes
// a minute, where per-process limits would allow 30 each.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteHash } from '../../src/core/annotate.ts';
import { DEFAULT_LIMITS } from '../../src/web/annotate/rate-limit.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { serveArena, tmpDir, type ServingArena } from '../support/cli.ts';
import { ANSWERS, QUESTIONS } from '../storage/contract.ts';

const TOKEN = 'limits-invite-token-0123456789';
const SECRET = 'a-shared-secret-of-more-than-32-characters';

describe('two arena serve --annotate processes on one database', { timeout: 120_000 }, () => {
  let servers: ServingArena[] = [];
  beforeAll(async () => {
    const db = join(tmpDir('arena-annotate-limits-'), 'arena.db');
    const store = openSqliteStore(db);
    await store.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
    });
    await store.annotators.add('alice', inviteHash(TOKEN), Date.now());
    await store.close();
    const env = { ARENA_ANNOTATE_SECRET: SECRET };
    servers = await Promise.all(
      [0, 1].map(() => serveArena(['serve', '--annotate', '--db', db, '--port', '0'], { env })),
    );
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("share one annotator's vote limit: the 31st vote in a minute is a 429 whichever process gets it", async () => {
    const post = (url: string, body: Record<string, string>, cookie = '') =>
      fetch(`${url}${body.token ? '/annotate/login' : '/annotate/vote'}`, {
        method: 'POST',
        body: new URLSearchParams(body).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: url, Cookie: cookie },
        redirect: 'manual',
      });
    const [a, b] = servers.map((s) => s.url) as [string, string];
    const login = await post(a, { token: TOKEN });
    expect(login.status).toBe(303);
    const cookie = /^(arena_annotate=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]!;
    // the session signed by one process is good on the other (one secret)
    const page = await (await fetch(`${b}/annotate`, { headers: { Cookie: cookie } })).text();
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(page)![1]!;
    // each post is counted before its choice is read: a choice no form sends is a 400 until the limit
    const max = DEFAULT_LIMITS.votes.max;
    const codes: number[] = [];
    for (let i = 0; i < max + 2; i++)
      codes.push((await post(i % 2 ? b : a, { choice: 'none', csrf }, cookie)).status);
    expect(codes).toEqual([...Array<number>(max).fill(400), 429, 429]);
    const limited = await post(a, { choice: 'none', csrf }, cookie);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
