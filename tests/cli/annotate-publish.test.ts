// Issue 35, item 1: the annotator page beside refreshes that publish a copy. Serving the copy with --annotate is
// refused up front; on the source, votes cast between three refreshes are stored once in source and copy, both
// pass integrity_check, a used invite stays used, nothing answers 500, and a read-only server follows the copy.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_MTBENCH, writeConfig } from '../ops/helpers.ts';
import { arenaOk, runArenaProcess, serveArena, tmpDir } from '../support/cli.ts';

const SECRET = 'Soak-annotate-secret-0123456789-abcdefXYZ';

function votesIn(file: string): { voter: string; question_id: number; model_a: string; model_b: string }[] {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return db
      .prepare(
        "SELECT voter, question_id, model_a, model_b FROM votes WHERE judge = 'annotators' ORDER BY question_id, model_a, model_b",
      )
      .all() as never;
  } finally {
    db.close();
  }
}

describe.skipIf(!HAVE_MTBENCH)('serve --annotate beside a publishing refresh', { timeout: 600_000 }, () => {
  it('refuses the published copy, and on the source every accepted vote survives three refreshes once', async () => {
    const dir = tmpDir('arena-annotate-publish-');
    const cfg = writeConfig(dir, {
      url: 'http://127.0.0.1:9/v1',
      models: ['alpaca-13b', 'vicuna-13b-v1.2', 'llama-13b'],
      judge: { id: 'mock/longer', baseURL: undefined },
      extra: { publish: { sqlite: 'public.db' } },
    });
    const source = join(dir, 'arena.db');
    const copy = join(dir, 'public.db');
    const refresh = () => arenaOk(['refresh', '--config', cfg]);
    await refresh();
    const added = await arenaOk(['annotators', 'add', 'alice', '--db', source]);
    const token = /token=([A-Za-z0-9_-]+)/.exec(added)![1]!;
    await refresh();

    const env = { ARENA_ANNOTATE_SECRET: SECRET };
    const refused = await runArenaProcess(['serve', '--annotate', '--db', copy, '--port', '0'], {
      env,
      timeoutMs: 30_000,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`is a copy published from ${source}`);
    expect(refused.stderr).toContain(`arena serve --annotate --db ${source}`);

    const site = await serveArena(['serve', '--annotate', '--db', source, '--port', '0'], { env });
    const reader = await serveArena(['serve', '--db', copy, '--port', '0']);
    const statuses: number[] = [];
    const post = async (path: string, body: Record<string, string>, cookie = '') => {
      const r = await fetch(`${site.url}${path}`, {
        method: 'POST',
        body: new URLSearchParams(body).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: site.url, Cookie: cookie },
        redirect: 'manual',
      });
      statuses.push(r.status);
      return r;
    };
    try {
      const login = await post('/annotate/login', { token });
      expect(login.status).toBe(303);
      const cookie = /^(arena_annotate=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]!;
      let accepted = 0;
      const vote = async (choice: string) => {
        const page = await fetch(`${site.url}/annotate`, { headers: { Cookie: cookie } });
        statuses.push(page.status);
        const body = await page.text();
        const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(body)![1]!;
        const match = /name="match" value="(\d+)"/.exec(body)![1]!;
        const r = await post('/annotate/vote', { choice, csrf, match }, cookie);
        if (r.status === 303) accepted++;
      };
      await vote('A');
      await vote('B');
      for (const choice of ['tie', 'A', 'bothbad']) {
        await refresh();
        // the read-only server on the copy follows the republish and still answers
        const lb = await fetch(`${reader.url}/api/leaderboard?judge=mock%2Flonger`);
        statuses.push(lb.status);
        await vote(choice);
      }
      expect(accepted).toBe(5);
      // a used invite is refused, before and after the refreshes alike
      expect((await post('/annotate/login', { token })).status).toBe(403);
      await refresh(); // the next refresh keeps them: they are in the source, and in its copy
      const stored = votesIn(source);
      expect(stored).toHaveLength(accepted);
      expect(new Set(stored.map((v) => JSON.stringify(v))).size).toBe(accepted);
      expect(votesIn(copy)).toEqual(stored);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(site.stderr()).not.toMatch(/Error|not open/);
    } finally {
      await Promise.all([site.stop(), reader.stop()]);
    }
  });
});
