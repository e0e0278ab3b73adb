// `arena serve` over a database republished by VACUUM INTO + rename (issue 12, item 12) serves the new file, and
// serves a read-only published copy without changing it.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { playOwn, serveArena, tmpDir } from '../support/cli.ts';

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

function publish(from: string, to: string): void {
  const src = new Database(from, { readonly: true });
  src.exec(`VACUUM INTO '${to.replace(/'/g, "''")}'`);
  src.close();
}

describe('arena serve follows a republished database', { timeout: 240_000 }, () => {
  it('after VACUUM INTO + rename the next requests show the new data; the published file is never written', async () => {
    const work = tmpDir();
    const site = tmpDir();
    const db = join(work, 'arena.db');
    const live = join(site, 'live.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turns', '1']);
    publish(db, live);

    const served = await serveArena(['serve', '--db', live, '--port', '0']);
    try {
      const url = served.url;
      const models = async () => {
        const r = await fetch(`${url}/api/leaderboard?judge=${encodeURIComponent('mock/longer')}`);
        expect(r.status).toBe(200);
        return ((await r.json()) as { model: string }[]).map((x) => x.model).sort();
      };
      expect(await models()).toEqual(['arena-echo', 'arena-sage']);

      // a refresh plays more games in its working copy, then publishes it over the served file
      await playOwn(db, 'mock/longer', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
      publish(db, join(site, 'next.db'));
      const published = sha(join(site, 'next.db'));
      renameSync(join(site, 'next.db'), live);
      const deadline = Date.now() + 20_000;
      let seen: string[] = [];
      while (Date.now() < deadline) {
        seen = await models();
        if (seen.includes('arena-swift')) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(seen).toEqual(['arena-echo', 'arena-sage', 'arena-swift']);
      expect(served.stderr()).toMatch(/live\.db was replaced: reopened it/);
      // served read-only: no -wal/-shm beside the published file
      expect(readdirSync(site)).toEqual(['live.db']);
      expect(sha(live)).toBe(published);
    } finally {
      await served.stop();
    }
  });
});
