// /runs, /api/runs and /api/runs.csv on a database with 50,001 runs: each shows the last 30 (newest first) or the
// last `?limit=` (at most 1000), never all of them. Real `arena serve` on a real SQLite file, over HTTP.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { serveArena, tmpDir, type ServingArena } from '../support/cli.ts';

const RUNS = 50_001;

describe('the runs pages on 50,001 runs', { timeout: 180_000 }, () => {
  let srv: ServingArena;
  beforeAll(async () => {
    const db = join(tmpDir('arena-runs-pages-'), 'arena.db');
    await openSqliteStore(db).close(); // the schema
    const s = new Database(db);
    const insert = s.prepare(
      "insert into runs (id, started_at, finished_at, judge, mode, config, planned, to_play, played, status) values (?, ?, ?, 'mock/longer', 'pairwise-all', '{}', 4, 4, 4, 'done')",
    );
    s.transaction(() => {
      for (let i = 0; i < RUNS; i++)
        insert.run(`run-${String(i).padStart(6, '0')}`, 1e12 + i * 1000, 1e12 + i * 1000 + 500);
    })();
    s.close();
    srv = await serveArena(['serve', '--db', db, '--port', '0']);
  }, 180_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('/api/runs: the last 30 by default, newest first; ?limit=1000 the last 1000; ?limit=1001 is refused', async () => {
    const runs = (await (await fetch(`${srv.url}/api/runs`)).json()) as { id: string }[];
    expect(runs.map((r) => r.id)).toEqual(
      Array.from({ length: 30 }, (_, k) => `run-${String(RUNS - 1 - k).padStart(6, '0')}`),
    );
    const many = (await (await fetch(`${srv.url}/api/runs?limit=1000`)).json()) as { id: string }[];
    expect(many).toHaveLength(1000);
    expect(many[999]!.id).toBe(`run-${String(RUNS - 1000).padStart(6, '0')}`);
    expect((await fetch(`${srv.url}/api/runs?limit=1001`)).status).toBe(400);
    const csv = await (await fetch(`${srv.url}/api/runs.csv`)).text();
    expect(csv.trimEnd().split('\n')).toHaveLength(31);
  });

  it('/runs: 30 rows, under 100 KB, with a link to more', async () => {
    const r = await fetch(`${srv.url}/runs`);
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html.length).toBeLessThan(100_000);
    expect(html.match(/<tr><th scope="row"/g)).toHaveLength(30);
    expect(html).toContain('The last 30 runs, newest first');
    expect(html).toContain('href="/runs?limit=1000"');
  });
});
