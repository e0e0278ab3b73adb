// /annotate sessions and identities (issue 35), in-process: logout and revocation end the session on the server, a
// re-invited annotator keeps one voter, a vote not stored is never answered as stored, per-annotator request limits.
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { inviteHash } from '../../src/core/annotate.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { secretProblem } from '../../src/web/annotate/routes.ts';
import { tmpDir } from '../support/cli.ts';
import { ANSWERS, QUESTIONS } from '../storage/contract.ts';

const SECRET = 'sessions-test-secret-0123456789-abcdefXYZ';
const ORIGIN = 'http://localhost';
let store: SqliteStore;

beforeAll(async () => {
  store = openSqliteStore(join(tmpDir('arena-annotate-sessions-'), 'site.db'));
  await store.importBundle({
    questions: { source: 'q.jsonl', items: QUESTIONS },
    answers: [{ source: 'a.jsonl', items: ANSWERS }],
  });
});

type App = ReturnType<typeof createApp>;
const appWith = (limits = {}) =>
  createApp({ store, bootstrapRounds: 10, annotate: { secret: SECRET, limits, address: () => '10.0.0.1' } });

const post = (app: App, path: string, fields: Record<string, string>, cookie = '') =>
  app.request(path, {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN, Cookie: cookie },
  });

async function invite(name: string): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  await store.annotators.add(name, inviteHash(token), Date.now());
  return token;
}

async function login(app: App, token: string): Promise<string> {
  const r = await post(app, '/annotate/login', { token });
  expect(r.status).toBe(303);
  return /^(arena_annotate=[^;]+)/.exec(r.headers.get('set-cookie') ?? '')![1]!;
}

async function open(app: App, cookie: string) {
  const r = await app.request('/annotate', { headers: { Cookie: cookie } });
  const body = await r.text();
  return {
    status: r.status,
    csrf: /name="csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? '',
    match: /name="match" value="(\d+)"/.exec(body)?.[1] ?? '',
  };
}

const votesOf = async (id: number) =>
  (await store.votes.list('annotators')).filter((v) => v.voter === `annotator_${id}`);

describe('/annotate sessions', () => {
  it('logout ends the session on the server: a copy of the old cookie is refused, and its vote is not stored', async () => {
    const app = appWith();
    const cookie = await login(app, await invite('lou'));
    const page = await open(app, cookie);
    expect(page.status).toBe(200);
    const out = await post(app, '/annotate/logout', { csrf: page.csrf }, cookie);
    expect(out.status).toBe(303);
    expect((await open(app, cookie)).status).toBe(401);
    const vote = await post(
      app,
      '/annotate/vote',
      { choice: 'A', csrf: page.csrf, match: page.match },
      cookie,
    );
    expect(vote.status).toBe(401);
    const lou = (await store.annotators.list()).find((a) => a.name === 'lou')!;
    expect(await votesOf(lou.id)).toEqual([]);
  });

  it('a revoked annotator invited again logs in as the same voter; the revoked session stays dead', async () => {
    const app = appWith();
    const old = await login(app, await invite('rae'));
    const first = await open(app, old);
    expect(
      (await post(app, '/annotate/vote', { choice: 'A', csrf: first.csrf, match: first.match }, old)).status,
    ).toBe(303);
    await store.annotators.revoke('rae', Date.now());
    expect((await open(app, old)).status).toBe(401);
    const token = randomBytes(24).toString('base64url');
    const again = await store.annotators.add('rae', inviteHash(token), Date.now());
    expect(again.again).toBe(true);
    expect((await open(app, old)).status).toBe(401);
    const cookie = await login(app, token);
    const next = await open(app, cookie);
    expect(next.match).not.toBe(first.match); // what was answered stays answered
    expect(
      (await post(app, '/annotate/vote', { choice: 'B', csrf: next.csrf, match: next.match }, cookie)).status,
    ).toBe(303);
    expect(await votesOf(again.id)).toHaveLength(2);
    expect((await store.annotators.list()).filter((a) => a.name === 'rae')).toHaveLength(1);
  });

  it('a vote on a match the voter has an imported vote on is answered 409, not stored twice, and set aside', async () => {
    const app = appWith();
    const cookie = await login(app, await invite('ike'));
    const page = await open(app, cookie);
    const n = (await store.annotators.annotation(Number(page.match)))!;
    await store.importBundle({
      votes: [
        {
          source: 'ike.jsonl',
          items: [
            {
              judge: 'annotators',
              voter: `annotator_${n.annotatorId}`,
              questionId: n.questionId,
              turn: n.turn,
              model1: n.model1,
              model2: n.model2,
              winner: 'tie',
              line: 1,
            },
          ],
        },
      ],
    });
    const r = await post(app, '/annotate/vote', { choice: 'A', csrf: page.csrf, match: page.match }, cookie);
    expect(r.status).toBe(409);
    expect(await r.text()).toContain('this one was not stored');
    expect((await votesOf(n.annotatorId)).map((v) => v.winner)).toEqual(['tie']);
    expect((await store.annotators.annotation(n.id))?.choice).toBe('skip');
    expect((await open(app, cookie)).match).not.toBe(page.match);
  });

  it('once logged in, the request limit is per annotator: one annotator past it does not stop another behind the same address', async () => {
    const app = appWith({ address: { max: 6, windowMs: 60_000 } });
    const a = await login(app, await invite('ann'));
    const b = await login(app, await invite('bea'));
    const codes: number[] = [];
    for (let i = 0; i < 8; i++) codes.push((await open(app, a)).status);
    expect(codes.slice(0, 6)).toEqual(Array<number>(6).fill(200));
    expect(codes.slice(6)).toEqual([429, 429]);
    expect((await open(app, b)).status).toBe(200);
  });

  it('a session secret must be long and varied: a repeated character or a repeated short string is refused', () => {
    expect(secretProblem('x'.repeat(40))).toMatch(/only 1 distinct characters/);
    expect(secretProblem('abcdefghijk'.repeat(4))).toMatch(/repeats its first 11 characters/);
    expect(secretProblem('short')).toMatch(/at least 32 characters/);
    expect(secretProblem(SECRET)).toBeUndefined();
    for (let i = 0; i < 200; i++) expect(secretProblem(randomBytes(16).toString('hex'))).toBeUndefined();
    expect(() => createApp({ store, annotate: { secret: '0123456789'.repeat(4) } })).toThrow(
      /session secret repeats its first 10 characters/,
    );
  });
});
