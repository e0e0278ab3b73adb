// /annotate in-process over a real SQLite file: off unless turned on, invites, a signed HttpOnly SameSite cookie,
// CSRF on every POST, one count per vote, revocation, rate limits, security headers and CSP, voters never shown.
import { join } from 'node:path';
import { sign } from 'hono/jwt';
import { beforeAll, describe, expect, it } from 'vitest';
import { inviteHash } from '../../src/core/annotate.ts';
import { buildReports } from '../../src/reports/site/build.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import type { Store } from '../../src/storage/store.ts';
import { createApp, type AppOptions } from '../../src/web/app.ts';
import { tmpDir } from '../support/cli.ts';
import { ANSWERS, QUESTIONS, REFERENCES } from '../storage/contract.ts';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const ORIGIN = 'http://localhost';
let store: SqliteStore;
let invites = 0;

beforeAll(async () => {
  store = openSqliteStore(join(tmpDir('arena-annotate-'), 'site.db'));
  await store.importBundle({
    questions: { source: 'q.jsonl', items: QUESTIONS },
    references: REFERENCES,
    answers: [
      {
        source: 'a.jsonl',
        items: [...ANSWERS, { model: 'gamma', questionId: 81, turns: ['Mahalo', 'A poem.'] }],
      },
    ],
  });
});

type App = ReturnType<typeof createApp>;
const appWith = (
  annotate: Partial<NonNullable<AppOptions['annotate']>> | null = {},
  now = () => Date.now(),
) =>
  createApp({
    store,
    bootstrapRounds: 10,
    ...(annotate ? { annotate: { secret: SECRET, now, ...annotate } } : {}),
  });

/** A new annotator and its invite token (written as `arena annotators add` does). */
async function invite(into: Store = store): Promise<{ name: string; token: string; id: number }> {
  const name = `person-${++invites}`;
  const token = `token-${invites}-${Math.random().toString(36).slice(2)}`;
  const a = await into.annotators.add(name, inviteHash(token), Date.now());
  return { name, token, id: a.id };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const post = (app: App, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  app.request(path, {
    method: 'POST',
    body: form(fields),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN, ...headers },
  });

/** Log in with an invite; the session cookie (name=value). */
async function login(app: App, token: string): Promise<string> {
  const r = await post(app, '/annotate/login', { token });
  expect(r.status).toBe(303);
  return /^(arena_annotate=[^;]+)/.exec(r.headers.get('set-cookie') ?? '')![1]!;
}

/** The annotate page of a session: its CSRF token and match id. */
async function open(app: App, cookie: string) {
  const r = await app.request('/annotate', { headers: { Cookie: cookie } });
  const body = await r.text();
  return {
    r,
    body,
    csrf: /name="csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? '',
    match: /name="match" value="(\d+)"/.exec(body)?.[1] ?? '',
  };
}

function expectSecured(r: Response, what: string): void {
  const csp = r.headers.get('content-security-policy') ?? '';
  expect(csp, what).toContain("default-src 'none'");
  expect(csp, what).toContain("script-src 'self'");
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).toContain("form-action 'self'");
  expect(r.headers.get('x-frame-options'), what).toBe('DENY');
  expect(r.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(r.headers.get('referrer-policy'), what).toBe('no-referrer');
}

describe('/annotate', () => {
  it('is not there unless turned on: 404 for GET and HEAD (with the security headers), POST refused', async () => {
    const app = appWith(null);
    for (const path of ['/annotate', '/annotate/login?token=x']) {
      for (const method of ['GET', 'HEAD']) {
        const r = await app.request(path, { method });
        expect(r.status, `${method} ${path}`).toBe(404);
        expectSecured(r, `${method} ${path}`);
      }
    }
    const { token } = await invite();
    const r = await post(app, '/annotate/login', { token });
    expect(r.status).toBe(405);
    expect(r.headers.get('set-cookie')).toBeNull();
    // turned on: every annotate response carries them, whatever its status or method
    const on = appWith();
    for (const [method, path, status] of [
      ['GET', '/annotate/login', 200],
      ['HEAD', '/annotate/login', 200],
      ['HEAD', '/annotate', 401],
      ['GET', '/annotate/nowhere', 404],
      ['POST', '/annotate/vote', 403], // no Origin: hono/csrf
    ] as const) {
      const res = await on.request(path, {
        method,
        ...(method === 'POST'
          ? { body: 'choice=A', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }
          : {}),
      });
      expect(res.status, `${method} ${path}`).toBe(status);
      expectSecured(res, `${method} ${path}`);
    }
  });

  it('an invite logs in once: the cookie is signed, HttpOnly, SameSite=Lax, expiring, Secure over https; a replayed or revoked invite is refused', async () => {
    const app = appWith();
    const { token } = await invite();
    const page = await app.request(`/annotate/login?token=${token}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`name="token" value="${token}"`); // GET changes nothing: link previews are harmless
    const r = await post(app, '/annotate/login', { token });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/annotate');
    const cookie = r.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^arena_annotate=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/annotate');
    expect(cookie).toMatch(/Max-Age=28800/);
    expect(cookie).not.toContain('Secure');
    const replay = await post(app, '/annotate/login', { token });
    expect(replay.status).toBe(403);
    expect(replay.headers.get('set-cookie')).toBeNull();
    expect(await replay.text()).toContain('This invite is not valid');
    expectSecured(replay, 'replayed invite');

    const second = await invite();
    await store.annotators.revoke(second.name, Date.now());
    expect((await post(app, '/annotate/login', { token: second.token })).status).toBe(403);

    const third = await invite();
    const https = await app.request('https://arena.example/annotate/login', {
      method: 'POST',
      body: form({ token: third.token }),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://arena.example' },
    });
    expect(https.status).toBe(303);
    expect(https.headers.get('set-cookie')).toContain('Secure');
    // a login posted from another site is refused before the invite is looked at (hono/csrf)
    const fourth = await invite();
    const foreign = await post(
      app,
      '/annotate/login',
      { token: fourth.token },
      { Origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect(await store.annotators.redeem(inviteHash(fourth.token), Date.now())).toBeDefined();
  });

  it('shows one blind match (no model names) in a recorded order; a vote needs the session CSRF token and counts once', async () => {
    const app = appWith();
    const me = await invite();
    const other = await invite();
    const cookie = await login(app, me.token);
    const otherCookie = await login(app, other.token);
    const first = await open(app, cookie);
    expect(first.r.status).toBe(200);
    expect(first.r.headers.get('cache-control')).toBe('no-store');
    expectSecured(first.r, 'GET /annotate');
    for (const model of ['alpha', 'beta', 'gamma']) expect(first.body).not.toContain(model);
    expect(first.body).toContain('0 voted · 0 skipped · 6 matches in the queue');
    expect(first.csrf).toMatch(/^[0-9a-f]{32}$/);
    const again = await open(app, cookie);
    expect(again.match).toBe(first.match); // the pending match stays, in the same order
    const shown = await store.annotators.annotation(Number(first.match));
    const [a, b] = shown!.order === 'AB' ? [shown!.model1, shown!.model2] : [shown!.model2, shown!.model1];
    const k = shown!.turn - 1;
    const texts = (await store.catalog.answers()).filter((x) => x.questionId === shown!.questionId);
    const textOf = (m: string) => texts.find((x) => x.model === m)!.turns[k]!;
    expect(first.body.indexOf(`<p>${textOf(a)}</p>`)).toBeLessThan(first.body.indexOf(`<p>${textOf(b)}</p>`));

    const theirs = await open(app, otherCookie);
    const before = (await store.votes.list('annotators')).length;
    for (const [what, fields] of [
      ['no CSRF token', { choice: 'A', match: first.match }],
      ["another session's CSRF token", { choice: 'A', match: first.match, csrf: theirs.csrf }],
      ['an empty CSRF token', { choice: 'A', match: first.match, csrf: '' }],
    ] as const) {
      const r = await post(app, '/annotate/vote', fields, { Cookie: cookie });
      expect(r.status, what).toBe(403);
      expectSecured(r, what);
    }
    expect((await store.votes.list('annotators')).length).toBe(before);
    // someone else's match is not yours to vote on
    const foreign = await post(
      app,
      '/annotate/vote',
      { choice: 'A', match: theirs.match, csrf: first.csrf },
      { Cookie: cookie },
    );
    expect(foreign.status).toBe(404);

    const vote = { choice: 'A', match: first.match, csrf: first.csrf, reason: 'clearer' };
    expect((await post(app, '/annotate/vote', vote, { Cookie: cookie })).status).toBe(303);
    expect((await post(app, '/annotate/vote', vote, { Cookie: cookie })).status).toBe(303);
    expect((await post(app, '/annotate/vote', { ...vote, choice: 'B' }, { Cookie: cookie })).status).toBe(
      303,
    );
    const mine = (await store.votes.list('annotators')).filter((v) => v.voter === `annotator_${me.id}`);
    expect(mine).toEqual([
      {
        judge: 'annotators',
        voter: `annotator_${me.id}`,
        questionId: shown!.questionId,
        turn: shown!.turn,
        model1: shown!.model1,
        model2: shown!.model2,
        winner: shown!.order === 'AB' ? 'model_1' : 'model_2',
      },
    ]);
    const next = await open(app, cookie);
    expect(next.match).not.toBe(first.match);
    expect(next.body).toContain('1 voted · 0 skipped');
    const bad = await post(
      app,
      '/annotate/vote',
      { choice: 'C', match: next.match, csrf: next.csrf },
      { Cookie: cookie },
    );
    expect(bad.status).toBe(400);
  });

  it('refuses a forged, altered or expired cookie, and a revoked annotator at once', async () => {
    let clock = Date.now();
    const app = appWith({}, () => clock);
    const me = await invite();
    const cookie = await login(app, me.token);
    expect((await open(app, cookie)).r.status).toBe(200);
    const exp = Math.floor(clock / 1000) + 3600;
    const forged = await sign(
      { sub: String(me.id), sid: 'f'.repeat(32), exp },
      'another-secret-of-32-characters-or-more',
      'HS256',
    );
    const real = cookie.slice('arena_annotate='.length).split('.');
    const altered = [
      real[0],
      Buffer.from(JSON.stringify({ sub: '1', sid: 'x', exp })).toString('base64url'),
      real[2],
    ].join('.');
    const expired = await sign(
      { sub: String(me.id), sid: 'e'.repeat(32), exp: Math.floor(clock / 1000) - 1 },
      SECRET,
      'HS256',
    );
    for (const [what, value] of [
      ['forged', forged],
      ['altered', altered],
      ['expired', expired],
      ['garbage', 'not-a-token'],
    ] as [string, string][]) {
      const r = await app.request('/annotate', { headers: { Cookie: `arena_annotate=${value}` } });
      expect(r.status, what).toBe(401);
      expectSecured(r, what);
    }
    clock += 8 * 3600 * 1000 + 1000; // past the session's lifetime
    expect((await open(app, cookie)).r.status).toBe(401);
    clock = Date.now();
    const page = await open(app, cookie);
    expect(page.r.status).toBe(200);
    await store.annotators.revoke(me.name, Date.now());
    expect((await open(app, cookie)).r.status).toBe(401);
    const vote = await post(
      app,
      '/annotate/vote',
      { choice: 'A', match: page.match, csrf: page.csrf },
      { Cookie: cookie },
    );
    expect(vote.status).toBe(401);
  });

  it('limits requests per address and votes per annotator (429 with Retry-After and the security headers)', async () => {
    const app = appWith({
      limits: { address: { max: 5, windowMs: 60_000 }, votes: { max: 2, windowMs: 60_000 } },
      // the limits are counted in the database this file shares: the session's requests below each come from an
      // address of their own, so that only the annotator's vote limit applies to them
      address: (c) => c.req.header('x-test-address') ?? crypto.randomUUID(),
    });
    for (let i = 0; i < 5; i++)
      expect((await app.request('/annotate', { headers: { 'x-test-address': 'one' } })).status).toBe(401);
    const limited = await app.request('/annotate', { headers: { 'x-test-address': 'one' } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expectSecured(limited, '429');
    expect((await app.request('/annotate', { headers: { 'x-test-address': 'two' } })).status).toBe(401);

    const me = await invite();
    const cookie = await login(app, me.token);
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await open(app, cookie);
      codes.push(
        (
          await post(
            app,
            '/annotate/vote',
            { choice: 'skip', match: p.match, csrf: p.csrf },
            { Cookie: cookie },
          )
        ).status,
      );
    }
    expect(codes).toEqual([303, 303, 429]);
  });

  it("visitors see the annotators' votes only as a judge: no name and no voter id on the public pages", async () => {
    const app = appWith();
    const me = await invite();
    const cookie = await login(app, me.token);
    const p = await open(app, cookie);
    await post(app, '/annotate/vote', { choice: 'tie', match: p.match, csrf: p.csrf }, { Cookie: cookie });
    const n = (await store.annotators.annotation(Number(p.match)))!;
    for (const path of [
      `/matches?question=${n.questionId}&a=${n.model1}&b=${n.model2}`,
      `/api/match?question=${n.questionId}&a=${n.model1}&b=${n.model2}`,
    ]) {
      const r = await app.request(path);
      const body = await r.text();
      expect(r.status, path).toBe(200);
      expect(body, path).toContain('annotators');
      expect(body, path).not.toContain(me.name);
      expect(body, path).not.toMatch(/annotator_\d/);
    }
  });
});

// The Worker reads the reports of the last publish and never computes one. The first annotator vote cast there
// makes `annotators` a judge that has none: the site lists the judges it has reports of and still counts the
// votes cast since; the next publish (which rebuilds the reports) brings their agreement in. The Node site over
// the same state computes what it lacks.
describe('the first annotator votes, cast between two publishes', () => {
  const ROUNDS = 10;
  /** the site's own pages linked from its home page */
  const linked = async (app: App) => [
    '/',
    ...new Set(
      [...(await (await app.request('/')).text()).matchAll(/href="(\/[^"]*)"/g)]
        .map((m) => m[1]!.replace(/&amp;/g, '&'))
        .filter((h) => !/^\/(static|charts|favicon|api|#|annotate)/.test(h) && h !== '/'),
    ),
  ];
  const statuses = async (app: App, paths: string[]) =>
    Object.fromEntries(await Promise.all(paths.map(async (p) => [p, (await app.request(p)).status])));
  const counted = async (app: App) =>
    /<p id="annotators-counted">(.*?)<\/p>/.exec(await (await app.request('/judges')).text())?.[1] ?? '';

  it('the Worker lists only judges it has reports of (every page answers), counts the votes cast since, and shows their agreement once published', async () => {
    const site = openSqliteStore(join(tmpDir('arena-annotate-first-'), 'site.db'));
    const human = { judge: 'human', voter: 'e1', questionId: 81, model1: 'alpha', model2: 'beta' };
    await site.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
      votes: [
        {
          source: 'h.csv',
          // one win each, so that the experts rate both models (benchmark health needs it)
          items: (['model_1', 'model_2'] as const).map((winner, k) => ({
            ...human,
            turn: k + 1,
            winner,
            line: k + 1,
          })),
        },
      ],
    });
    // published: the reports built, no annotator has voted
    await buildReports(site, { bootstrapRounds: ROUNDS });
    const worker = () =>
      createApp({ store: site, reports: 'read', bootstrapRounds: ROUNDS, annotate: { secret: SECRET } });
    const me = await invite(site);
    const app = worker();
    const cookie = await login(app, me.token);
    for (const choice of ['A', 'B']) {
      const p = await open(app, cookie);
      expect(p.r.status).toBe(200);
      const r = await post(
        app,
        '/annotate/vote',
        { choice, match: p.match, csrf: p.csrf },
        { Cookie: cookie },
      );
      expect(r.status).toBe(303);
    }
    expect(await site.votes.list('annotators')).toHaveLength(2);

    const w = worker();
    const pages = await linked(w);
    expect(pages).toEqual(expect.arrayContaining(['/judges', '/matrix', '/models']));
    expect(await statuses(w, pages)).toEqual(Object.fromEntries(pages.map((p) => [p, 200])));
    expect(await counted(w)).toMatch(/ from 0 annotator votes; <strong>2 votes cast since<\/strong>/);
    // the judges' rankings side by side: annotators have no published leaderboard yet
    const rankedBy = '<th scope="col">annotators</th>';
    expect(await (await w.request('/judges')).text()).not.toContain(rankedBy);
    expect((await w.request('/charts/judges.svg')).status).toBe(200);
    const standings = await w.request('/api/standings?judge=annotators');
    expect(standings.status).toBe(404);
    expect(((await standings.json()) as { error: string }).error).toContain(
      'judge "annotators" has no leaderboard here yet: its reports are built at the next `arena publish`',
    );
    // listed with its votes, as every judge with votes is
    expect(await (await w.request('/api/judges')).json()).toContainEqual({
      judge: 'annotators',
      games: 0,
      votes: 2,
    });

    // the Node site over the same file computes the reports it lacks: the same pages answer, annotators included
    const node = createApp({ store: site, bootstrapRounds: ROUNDS });
    expect(await statuses(node, pages)).toEqual(Object.fromEntries(pages.map((p) => [p, 200])));
    expect((await node.request('/api/standings?judge=annotators')).status).toBe(200);
    expect(await (await node.request('/judges')).text()).toContain(rankedBy);

    // the next publish rebuilds the reports: annotators get a leaderboard and their agreement with the experts
    await buildReports(site, { bootstrapRounds: ROUNDS });
    const after = worker();
    expect(await counted(after)).toMatch(/ from 2 annotator votes\.$/);
    expect((await after.request('/api/standings?judge=annotators')).status).toBe(200);
    const agreement = (await (await after.request('/api/agreement')).json()) as {
      judge1: string;
      judge2: string;
      setup: string;
      total: number;
      agree: number;
    }[];
    const withExperts = agreement.filter(
      (r) => r.setup === 'with-tie' && [r.judge1, r.judge2].sort().join() === 'annotators,human',
    );
    expect(withExperts.reduce((n, r) => n + r.total, 0)).toBe(2);
    await site.close();
  });
});

// A few expert votes in which one model never lost: the experts cannot rate the models yet (no finite
// Bradley–Terry ratings), so benchmark health has no yardstick. The reports are still built and every page answers;
// /health says why the judge is missing instead of the whole publish failing.
describe('benchmark health while the experts cannot rate the models yet', () => {
  it('builds the reports, and /health names the judge and the reason', async () => {
    const site = openSqliteStore(join(tmpDir('arena-annotate-unrated-'), 'site.db'));
    const vote = { questionId: 81, model1: 'alpha', model2: 'beta', winner: 'model_1' as const };
    await site.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
      votes: [
        // alpha wins both expert votes: beta never beat it
        {
          source: 'h.csv',
          items: [1, 2].map((turn) => ({ ...vote, judge: 'human', voter: 'e1', turn, line: turn })),
        },
        {
          source: 'annotate',
          items: [1, 2].map((turn) => ({
            ...vote,
            judge: 'annotators',
            voter: 'annotator_1',
            turn,
            line: turn,
          })),
        },
      ],
    });
    await buildReports(site, { bootstrapRounds: 10 });
    const app = createApp({ store: site, reports: 'read', bootstrapRounds: 10 });
    const r = await app.request('/health');
    expect(r.status).toBe(200);
    expect(await r.text()).toMatch(
      /annotators: the reference &#34;human&#34; cannot rate these models yet: in its 2 verdicts over 2 models, alpha never lost to the others/,
    );
    expect(await (await app.request('/api/health')).json()).toEqual([]);
    await site.close();
  });
});
