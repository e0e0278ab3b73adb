// Stored reports (src/reports/site/stored.ts): rebuilt exactly when their games change, by the commands that
// change games (import, run, reparse, prune), never otherwise; and the Node site's handling of a missing one
// (one background computation however many requests ask, a "being updated" page meanwhile). Real SQLite files,
// the real `arena` commands in this process, the offline mock judges on the project's own questions.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/web/app.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { arenaOk, OWN_QA, playOwn, runArena, tmpDir } from '../support/cli.ts';

interface Built {
  computed: number;
  read: number;
  removed: number;
}
interface Row {
  view: string;
  params: string;
  builtAt: number;
  digest: string;
}

const rebuild = async (db: string) =>
  JSON.parse(await arenaOk(['reports', '--rebuild', '--db', db, '--json'])) as Built;
const index = async (db: string) => JSON.parse(await arenaOk(['reports', '--db', db, '--json'])) as Row[];
/** the "reports: N recomputed, M current" line a writing command ends with (undefined: none) */
const recomputed = (stderr: string) => {
  const m = /reports: (\d+) recomputed, (\d+) current/.exec(stderr);
  return m ? { computed: Number(m[1]), read: Number(m[2]) } : undefined;
};
const AUTH = { headers: { Authorization: 'Bearer t' } };
const ofJudge = (rows: Row[], judge: string) =>
  rows.filter((r) => r.view === 'leaderboard' && r.params.includes(`|${judge}:`));

describe('stored reports on the write path', () => {
  const db = join(tmpDir('arena-reports-'), 'site.db');
  let all = 0;

  beforeAll(async () => {
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
    await playOwn(db, 'mock/a', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
  }, 180_000);

  it('a database that holds no reports is left alone; --rebuild builds them all, then finds them current', async () => {
    const r = await runArena([
      'run',
      '--db',
      db,
      '--judge',
      'mock/longer',
      '--models',
      'arena-sage,arena-echo',
      ...OWN_QA,
      '--turns',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(recomputed(r.stderr)).toBeUndefined();
    const first = await rebuild(db);
    expect(first.computed).toBeGreaterThan(20);
    all = first.computed;
    expect(await rebuild(db)).toMatchObject({ computed: 0, read: all });
  }, 180_000);

  it('a run that plays nothing and an import of the same answers recompute nothing', async () => {
    const r = await runArena([
      'run',
      '--db',
      db,
      '--judge',
      'mock/longer',
      '--models',
      'arena-sage,arena-echo,arena-swift',
      ...OWN_QA,
      '--turns',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(recomputed(r.stderr)).toEqual({ computed: 0, read: all });
    const i = await runArena(['import', 'answers', '--db', db, 'questions/answers/arena-sage.jsonl']);
    expect(i.code, i.stderr).toBe(0);
    expect(recomputed(i.stderr)).toEqual({ computed: 0, read: all });
    const p = await runArena(['reparse', '--db', db, '--judge', 'mock/a', '--parser', 'fastchat']);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/ 0 verdict\(s\) changed/);
    expect(recomputed(p.stderr)).toEqual({ computed: 0, read: all });
  }, 180_000);

  it("a run of one judge recomputes that judge's reports and the ones across judges, not the other judge's", async () => {
    const before = await index(db);
    const r = await runArena([
      'run',
      '--db',
      db,
      '--judge',
      'mock/longer',
      '--models',
      'arena-sage,arena-drift',
      ...OWN_QA,
      '--turns',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const n = recomputed(r.stderr)!;
    expect(n.computed).toBeGreaterThan(0);
    expect(n.computed).toBeLessThan(all + 20);
    const after = await index(db);
    const key = (x: Row) => `${x.view} ${x.params}`;
    const was = new Map(before.map((x) => [key(x), x]));
    // the other judge's leaderboards: untouched rows
    for (const row of ofJudge(after, 'mock/a')) expect(row).toEqual(was.get(key(row)));
    // this judge's: every one rebuilt for the new digest
    for (const row of ofJudge(after, 'mock/longer')) expect(row.digest).not.toBe(was.get(key(row))?.digest);
    expect(after.find((x) => x.view === 'agreement')!.digest).not.toBe(
      before.find((x) => x.view === 'agreement')!.digest,
    );
  }, 180_000);

  it("prune removes the judge's reports and recomputes those across judges", async () => {
    const r = await runArena(['prune', '--db', db, '--judge', 'mock/a']);
    expect(r.code, r.stderr).toBe(0);
    expect(recomputed(r.stderr)!.computed).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/reports: .* removed/);
    expect(ofJudge(await index(db), 'mock/a')).toEqual([]);
    expect((await rebuild(db)).computed).toBe(0);
  }, 180_000);
});

describe('the Node site over stored reports', () => {
  it('serves stored reports without computing; a missing one is computed once in the background, the page saying so meanwhile', async () => {
    const db = join(tmpDir('arena-reports-serve-'), 'site.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
    await rebuild(db);
    const store = openSqliteStore(db, { readonly: true });
    try {
      const app = createApp({ store, reports: 'serve', adminToken: 't' });
      for (const p of [
        '/',
        '/judges',
        '/matrix',
        '/health',
        '/style',
        '/models/arena-sage?judge=mock/longer',
      ])
        expect((await app.request(p)).status, p).toBe(200);
      const counts = async () =>
        (await (await app.request('/api/admin/reports', AUTH)).json()) as Record<string, number>;
      expect(await counts()).toMatchObject({ computed: 0, missing: 0, stale: 0 });
      // a report no build made (other bootstrap rounds): four requests at once, one computation
      const other = createApp({ store, reports: 'serve', bootstrapRounds: 10, adminToken: 't' });
      const rs = await Promise.all(
        [1, 2, 3, 4].map(() => other.request('/api/leaderboard?judge=mock/longer')),
      );
      for (const r of rs) {
        expect(r.status).toBe(503);
        expect(r.headers.get('retry-after')).toBe('5');
        expect(r.headers.get('cache-control')).toBe('no-store');
      }
      const page = await other.request('/');
      expect(page.status).toBe(503);
      expect(await page.text()).toMatch(/This page is being updated/);
      for (
        let k = 0;
        k < 200 && (await other.request('/api/leaderboard?judge=mock/longer')).status !== 200;
        k++
      )
        await new Promise((r) => setTimeout(r, 50));
      const c = (await (await other.request('/api/admin/reports', AUTH)).json()) as Record<string, number>;
      expect((await other.request('/api/leaderboard?judge=mock/longer')).status).toBe(200);
      // the leaderboard computed once, not once per request (and the pages' other reports once each)
      expect(c.computed).toBeLessThanOrEqual(c.missing!);
      expect(c.computed).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  }, 180_000);
});
