// A write lock held by another connection (issue #12, item 2): a finished game's write waits on a timer, never
// blocking the event loop or lost; a lock held at start-up is reported by file name.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';
import { makeGame } from './contract.ts';

const dir = tmpDir('arena-busy-');

/** The longest gap between ticks of a 10 ms interval while `fn` runs: how long the event loop was blocked. */
async function maxTickGap<T>(fn: () => Promise<T>): Promise<{ value: T; gapMs: number }> {
  let last = performance.now();
  let gap = 0;
  const t = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 10);
  try {
    const value = await fn();
    return { value, gapMs: Math.max(gap, performance.now() - last) };
  } finally {
    clearInterval(t);
  }
}

describe('a database locked by another connection', () => {
  it('a game written while another process holds the write lock for 1.5 s is stored once the lock goes, and the event loop keeps running', async () => {
    const file = join(dir, 'busy.db');
    const store = openSqliteStore(file);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    other
      .prepare(
        "INSERT INTO runs (id, started_at, judge, mode, config, planned, to_play, status) VALUES ('other', 1, 'j', 'm', '{}', 0, 0, 'running')",
      )
      .run();
    const release = setTimeout(() => other.exec('COMMIT'), 1500);
    const g = makeGame();
    const t0 = performance.now();
    const { value, gapMs } = await maxTickGap(() => store.games.insert(g));
    const waited = performance.now() - t0;
    clearTimeout(release);
    expect(value).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(1400); // it did wait for the lock ...
    expect(gapMs).toBeLessThan(300); // ... without freezing the process (busy_timeout blocked it for the whole 1.5 s)
    expect((await store.games.list()).map((x) => x.id)).toEqual([g.id]);
    expect((await store.runs.list()).map((r) => r.id)).toEqual(['other']);
    other.close();
    await store.close();
  });

  it('a lock held longer than busy_timeout (5 s) still loses nothing: the write lands when it is released', async () => {
    const file = join(dir, 'long.db');
    const store = openSqliteStore(file);
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const release = setTimeout(() => other.exec('COMMIT'), 6000);
    const g = makeGame();
    await expect(store.games.insert(g)).resolves.toBe(true);
    clearTimeout(release);
    expect(await store.games.existingIds([g.id])).toEqual(new Set([g.id]));
    other.close();
    await store.close();
  }, 30_000);

  it('a lock held longer than busyRetryMs (a library option) is a clear error naming the file, and nothing is written', async () => {
    const file = join(dir, 'given-up.db');
    const store = openSqliteStore(file, { busyRetryMs: 300 });
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const g = makeGame();
    await expect(store.games.insert(g)).rejects.toThrow(
      /given-up\.db: the database is locked by another process/,
    );
    other.exec('ROLLBACK');
    other.close();
    expect(await store.games.existingIds([g.id])).toEqual(new Set());
    await store.close();
  }, 30_000);

  it('a lock held at start-up is a clear error naming the file', async () => {
    const file = join(dir, 'held.db');
    (await Promise.resolve(openSqliteStore(file))).sqlite.close();
    const other = new Database(file);
    other.exec('BEGIN EXCLUSIVE');
    try {
      expect(() => openSqliteStore(file, { startupWaitMs: 200 })).toThrow(
        new RegExp(
          `${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: the database is locked by another process`,
        ),
      );
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
  });
});
