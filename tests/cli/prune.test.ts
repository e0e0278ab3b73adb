// `arena prune`: what a newcomer's mock judge left on the public database goes, in one transaction, and the
// command says what it removed; a dry run changes nothing; a wrong call is a usage error.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { ANSWERS, makeGame, QUESTIONS } from '../storage/contract.ts';

describe('arena prune', () => {
  it('--judge removes that judge everywhere and reports it; --dry-run only reports; no target is a usage error', async () => {
    const db = join(tmpDir('arena-prune-'), 'arena.db');
    const store = openSqliteStore(db);
    await store.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
      games: [makeGame({ judge: 'mock/longer' }), makeGame({ judge: 'mock/longer' }), makeGame()],
    });
    await store.close();
    const dry = await runArena(['prune', '--db', db, '--judge', 'mock/longer', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would remove for judge "mock/longer": 2 games, 0 votes');
    const json = await runArena(['prune', '--db', db, '--judge', 'mock/longer', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: false, removed: { games: 2, runs: 0 } });
    const again = await runArena(['prune', '--db', db, '--judge', 'mock/longer']);
    expect(again.stdout).toContain('nothing to remove for judge "mock/longer"');
    const check = openSqliteStore(db);
    expect((await check.games.list()).map((g) => g.judge)).toEqual(['judge-x']);
    await check.close();
    const none = await runArena(['prune', '--db', db]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('give exactly one of --judge J, --model M or --run R');
  });
});

describe('arena serve --site-url', () => {
  it('refuses an address that is not http(s)', async () => {
    const r = await runArena([
      'serve',
      '--db',
      join(tmpDir('arena-site-url-'), 'x.db'),
      '--site-url',
      'arena.example',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      '--site-url expects an address like https://arena.example.org, got "arena.example"',
    );
  });
});
