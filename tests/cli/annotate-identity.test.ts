// Issue 35 through the real `arena`: imported voters kept, invites never reuse a number, re-importing one's export
// changes nothing, --trust-proxy counts logins per client, a weak ARENA_ANNOTATE_SECRET is refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { arenaOk, runArena, runArenaProcess, serveArena, tmpDir } from '../support/cli.ts';
import { ANSWERS, QUESTIONS } from '../storage/contract.ts';

async function database(dir: string): Promise<string> {
  const db = join(dir, 'arena.db');
  const store = openSqliteStore(db);
  await store.importBundle({
    questions: { source: 'q.jsonl', items: QUESTIONS },
    answers: [{ source: 'a.jsonl', items: ANSWERS }],
  });
  await store.close();
  return db;
}

const [M1, M2] = [...new Set(ANSWERS.map((a) => a.model))].sort() as [string, string];
const voteLine = (turn: number, winner: string, voter = 'annotator_1') =>
  JSON.stringify({ question_id: QUESTIONS[0]!.id, model_a: M1, model_b: M2, winner, judge: voter, turn });

describe('annotator identity through import and export', { timeout: 180_000 }, () => {
  it('a new invite never takes an imported voter number; importing the export back is idempotent; a contradiction is located', async () => {
    const dir = tmpDir('arena-annotate-identity-');
    const db = await database(dir);
    const file = join(dir, 'annotators.jsonl');
    writeFileSync(file, `${voteLine(1, 'model_a')}\n${voteLine(2, 'tie')}\n`);
    await arenaOk(['import', 'votes', file, '--db', db]);
    await arenaOk(['annotators', 'add', 'newbie', '--db', db]);
    const list = JSON.parse(await arenaOk(['annotators', 'list', '--db', db, '--json'])) as {
      name: string;
      voter: string;
      votes: number;
    }[];
    expect(list).toMatchObject([{ name: 'newbie', voter: 'annotator_2', votes: 0 }]);
    const unused = await runArena(['annotators', 'add', 'newbie', '--db', db]);
    expect(unused.stderr).toContain('"newbie" exists already and has not used the invite yet');
    await arenaOk(['annotators', 'revoke', 'newbie', '--db', db]);
    expect(await arenaOk(['annotators', 'add', 'newbie', '--db', db])).toContain(
      'invited newbie again, the same voter annotator_2',
    );

    // newbie votes on the site: stored, under its own number
    const site = openSqliteStore(db);
    const n = await site.annotators.show(
      2,
      { questionId: QUESTIONS[0]!.id, turn: 1, model1: M1, model2: M2 },
      'BA',
      1,
    );
    expect(await site.annotators.answer({ annotation: n, choice: 'bothbad', reason: null, at: 2 })).toBe(
      true,
    );
    await site.close();

    const out = join(dir, 'export.jsonl');
    await arenaOk(['export', 'votes', '--judge', 'annotators', '--db', db, '--out', out]);
    const exported = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(exported.map((r) => [r.judge, r.turn, r.winner])).toEqual([
      ['annotator_2', 1, 'tie (bothbad)'],
      ['annotator_1', 1, 'model_a'],
      ['annotator_1', 2, 'tie'],
    ]);
    for (let i = 0; i < 2; i++) {
      const back = await runArena(['import', 'votes', out, '--db', db]);
      expect(back.code, back.stderr).toBe(0);
    }
    const store = openSqliteStore(db);
    expect((await store.votes.list('annotators')).map((v) => [v.voter, v.turn, v.winner])).toEqual([
      ['annotator_1', 1, 'model_1'],
      ['annotator_1', 2, 'tie'],
      ['annotator_2', 1, 'tie'],
    ]);
    await store.close();

    const bad = join(dir, 'changed.jsonl');
    writeFileSync(bad, `${voteLine(1, 'model_a')}\n${voteLine(2, 'model_b')}\n`);
    const refused = await runArena(['import', 'votes', bad, '--db', db]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('changed.jsonl:2: field "winner": annotator_1 on question');
    expect(refused.stderr).not.toMatch(/SqliteError|UNIQUE|\n\s+at /);
  });
});

describe('serve --annotate behind a proxy, and its secret', { timeout: 180_000 }, () => {
  it('--trust-proxy 1: ten junk logins from one client leave another client able to log in', async () => {
    const db = await database(tmpDir('arena-annotate-proxy-'));
    const token = /token=([A-Za-z0-9_-]+)/.exec(await arenaOk(['annotators', 'add', 'ava', '--db', db]))![1]!;
    const env = { ARENA_ANNOTATE_SECRET: 'proxy-test-secret-0123456789-abcdefXYZ' };
    const site = await serveArena(['serve', '--annotate', '--trust-proxy', '1', '--db', db, '--port', '0'], {
      env,
    });
    try {
      const login = (value: string, forwarded: string) =>
        fetch(`${site.url}/annotate/login`, {
          method: 'POST',
          body: new URLSearchParams({ token: value }).toString(),
          headers: {
            'Content-Type': 'application/x-www-form-urlencoded',
            Origin: site.url,
            // the proxy appends the address it was connected from; the left part is the client's to forge
            'X-Forwarded-For': forwarded,
          },
          redirect: 'manual',
        });
      const junk: number[] = [];
      for (let i = 0; i < 11; i++) junk.push((await login('junk', `198.51.100.${i}, 203.0.113.7`)).status);
      expect(junk).toEqual([...Array<number>(10).fill(403), 429]);
      expect((await login(token, '203.0.113.8')).status).toBe(303);
    } finally {
      await site.stop();
    }
    const weak = await runArenaProcess(['serve', '--annotate', '--db', db, '--port', '0'], {
      env: { ARENA_ANNOTATE_SECRET: 'a'.repeat(40) },
      timeoutMs: 60_000,
    });
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(
      /^arena: ARENA_ANNOTATE_SECRET has only 1 distinct characters .*\n[^\n]*usage\n$/,
    );
  });
});
