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
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('nothing to remove: no judge "mock/longer" in');
    const check = openSqliteStore(db);
    expect((await check.games.list()).map((g) => g.judge)).toEqual(['judge-x']);
    await check.close();
    const none = await runArena(['prune', '--db', db]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('give exactly one of --judge J, --model M or --run R');
  });

  it('a name that matches nothing (a typo) is an error naming what there is, for each target, dry run or not; nothing changes', async () => {
    const db = join(tmpDir('arena-prune-typo-'), 'arena.db');
    const store = openSqliteStore(db);
    await store.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
      games: [makeGame({ judge: 'gpt-4' }), makeGame({ judge: 'mock/longer' })],
    });
    await store.runs.save({
      id: 'run-1',
      startedAt: 1,
      judge: 'mock/longer',
      mode: 'pairwise-all',
      config: {},
      planned: 1,
      toPlay: 1,
      played: 1,
      failed: 0,
      tokensIn: 0,
      tokensOut: 0,
      status: 'done',
    });
    const before = (await store.games.list()).length;
    await store.close();
    for (const [flag, typo, known] of [
      ['--judge', 'gpt4', 'judges: gpt-4, mock/longer'],
      ['--judge', 'constructor', 'judges: gpt-4, mock/longer'],
      ['--model', 'alpah', 'models: alpha, beta'],
      ['--run', 'run-2', 'runs: run-1'],
    ] as const)
      for (const dry of [[], ['--dry-run']]) {
        const r = await runArena(['prune', '--db', db, flag, typo, ...dry]);
        expect(r.code, `${flag} ${typo} ${dry.join('')}`).not.toBe(0);
        const what = flag.slice(2);
        expect(r.stderr).toContain(`nothing to remove: no ${what} "${typo}" in ${db} (${known})`);
        // the database is not touched: no report rebuilt either
        expect(r.stderr + r.stdout).not.toContain('reports:');
      }
    const check = openSqliteStore(db, { readonly: true });
    expect((await check.games.list()).length).toBe(before);
    await check.close();
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
