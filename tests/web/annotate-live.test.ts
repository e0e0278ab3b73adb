// The annotators' queue follows the database while the site runs (issue 35, items 7 and 9): a pruned model's match
// leaves the rest of the queue, imported answers are offered at once; an answer over 100,000 characters says the
// rest is left out; /api/leaderboard?judge=annotators counts new votes at once. Real commands, the site in-process.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inviteHash } from '../../src/core/annotate.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { buildReports } from '../../src/reports/site/build.ts';
import { createApp, type AppOptions } from '../../src/web/app.ts';
import { arenaOk, tmpDir } from '../support/cli.ts';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const ANSWERS = (m: string) => `questions/answers/${m}.jsonl`;

/** a database with our own questions and these models' answers */
async function database(...models: string[]): Promise<string> {
  const db = join(tmpDir('arena-annotate-queue-'), 'site.db');
  await arenaOk(['import', 'questions', 'questions/arena.jsonl', '--db', db]);
  await arenaOk(['import', 'answers', ...models.map(ANSWERS), '--db', db]);
  return db;
}

/** the site with /annotate over `store` (the data version read as `arena serve` reads it), and one logged-in annotator */
async function site(store: SqliteStore, name: string, o: Partial<AppOptions> = {}) {
  const app = createApp({
    store,
    annotate: { secret: SECRET },
    cache: { checkMs: 0, version: () => store.dataVersion() },
    ...o,
  });
  const token = `token-${name}`;
  const { id } = await store.annotators.add(name, inviteHash(token), Date.now());
  const r = await app.request('/annotate/login', {
    method: 'POST',
    body: new URLSearchParams({ token }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://localhost' },
  });
  expect(r.status).toBe(303);
  const cookie = /^(arena_annotate=[^;]+)/.exec(r.headers.get('set-cookie') ?? '')![1]!;
  /** the annotate page: the match offered (its id, or '' for none) and the queue's size */
  const page = async () => {
    const body = await (await app.request('/annotate', { headers: { Cookie: cookie } })).text();
    return {
      body,
      csrf: /name="csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? '',
      match: /name="match" value="(\d+)"/.exec(body)?.[1] ?? '',
      total: Number(/(\d+) matches in the queue/.exec(body)?.[1]),
      nothingLeft: body.includes('Nothing left to vote on'),
    };
  };
  /** vote `choice` on the match the page offers */
  const vote = async (choice: string) => {
    const { csrf, match } = await page();
    const r = await app.request('/annotate/vote', {
      method: 'POST',
      body: new URLSearchParams({ csrf, match, choice }).toString(),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'http://localhost',
        Cookie: cookie,
      },
    });
    expect(r.status).toBe(303);
  };
  return { app, id, page, vote };
}

describe('the annotate queue while the site runs', () => {
  it('a pending match whose model was pruned is passed over: the annotator gets the rest of the queue', async () => {
    const db = await database('arena-sage', 'arena-echo', 'arena-swift');
    const store = openSqliteStore(db);
    try {
      const { id, page } = await site(store, 'alice');
      const first = await page();
      expect(first.match).not.toBe('');
      // 24 questions of 2 turns, 3 pairs of models
      expect(first.total).toBe(144);
      const [pending] = (await store.annotators.shown(id)).filter((n) => n.choice === null);
      await arenaOk(['prune', '--model', pending!.model1, '--db', db]);
      const after = await page();
      expect(after.nothingLeft).toBe(false);
      expect(after.match).not.toBe(first.match);
      expect(after.total).toBe(48);
      const offered = (await store.annotators.shown(id)).find((n) => String(n.id) === after.match)!;
      expect([offered.model1, offered.model2]).not.toContain(pending!.model1);
    } finally {
      await store.close();
    }
  });

  it('answers imported while the site runs are in the queue at once, without a game or a vote', async () => {
    const db = await database('arena-sage', 'arena-echo');
    const store = openSqliteStore(db);
    try {
      const { page } = await site(store, 'carol');
      expect((await page()).total).toBe(48);
      // another process writes: the site's connection sees a new data version, and the fingerprint a new catalog
      await arenaOk(['import', 'answers', ANSWERS('arena-swift'), '--db', db]);
      expect((await page()).total).toBe(144);
    } finally {
      await store.close();
    }
  });
});

describe('the voting page', () => {
  it('an answer over 100,000 characters: the page says the rest is left out, and links to no JSON', async () => {
    const store = openSqliteStore(join(tmpDir('arena-annotate-long-'), 'site.db'));
    const long = `${'word '.repeat(30_000)}end`;
    await store.importBundle({
      questions: { source: 'q.jsonl', items: [{ id: 81, category: 'writing', turns: ['Write.', 'Again.'] }] },
      answers: [
        {
          source: 'a.jsonl',
          items: [
            { model: 'alpha', questionId: 81, turns: [long, long] },
            { model: 'beta', questionId: 81, turns: ['Short.', 'Short again.'] },
          ],
        },
      ],
    });
    try {
      const { body, match } = await (await site(store, 'dave')).page();
      expect(match).not.toBe('');
      expect(body).toContain(
        `more characters not shown; the rest of this answer is not shown here: judge what is shown, or skip the match]`,
      );
      expect(body).not.toContain('JSON link');
      expect(body).not.toContain('/api/match');
      expect(body).not.toMatch(/alpha|beta/);
    } finally {
      await store.close();
    }
  });
});

describe('the leaderboard of the annotators while they vote', () => {
  it('arena serve answers the count of every vote cast', async () => {
    const db = await database('arena-sage', 'arena-echo');
    const store = openSqliteStore(db);
    const counted = async (app: { request(p: string): Response | Promise<Response> }) => {
      const r = await app.request('/api/leaderboard?judge=annotators');
      expect(r.status).toBe(200);
      const rows = (await r.json()) as { win: number; loss: number; tie: number }[];
      return rows.reduce((n, x) => n + x.win + x.loss + x.tie, 0) / 2;
    };
    try {
      const { app, vote } = await site(store, 'erin', { bootstrapRounds: 10 });
      for (const choice of ['A', 'B']) await vote(choice);
      // the reports published after two votes, and the site started over them (as `arena serve` starts)
      await buildReports(store, { bootstrapRounds: 10 });
      expect(await counted(app)).toBe(2);
      for (const choice of ['A', 'tie', 'B']) await vote(choice);
      expect(await counted(app)).toBe(5);
    } finally {
      await store.close();
    }
  });
});
