// `arena annotators add|list|revoke` and `arena export votes`: invites printed once and stored as SHA-256, revoked
// ones refused; the export has the HF human_judgments shape and `arena import` reads it back as the same votes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { ANSWERS, QUESTIONS } from '../storage/contract.ts';

describe('arena annotators', () => {
  it('add prints a one-time link whose token is stored only as its SHA-256; list; revoke; bad names refused', async () => {
    const dir = tmpDir('arena-annotators-');
    const db = join(dir, 'arena.db');
    const added = await runArena([
      'annotators',
      'add',
      'alice',
      '--db',
      db,
      '--site-url',
      'https://a.example',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const token = /https:\/\/a\.example\/annotate\/login\?token=([A-Za-z0-9_-]{43})\n/.exec(
      added.stdout,
    )?.[1];
    expect(token, added.stdout).toBeDefined();
    const raw = openSqliteStore(db).sqlite;
    const rows = raw.prepare('SELECT name, token_hash FROM annotators').all();
    raw.close();
    expect(rows).toEqual([{ name: 'alice', token_hash: createHash('sha256').update(token!).digest('hex') }]);
    expect(readFileSync(db).includes(Buffer.from(token!))).toBe(false);

    const again = await runArena(['annotators', 'add', 'alice', '--db', db]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('an annotator named "alice" exists already');
    const bad = await runArena(['annotators', 'add', '<b>', '--db', db]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('NAME "<b>": a name is 1 to 64 letters');

    await runArena(['annotators', 'add', 'bob', '--db', db]);
    const revoked = await runArena(['annotators', 'revoke', 'bob', '--db', db]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('revoked bob');
    const list = await runArena(['annotators', 'list', '--db', db, '--json']);
    const listed = JSON.parse(list.stdout) as { name: string; revoked: string; votes: number }[];
    expect(listed.map((a) => [a.name, a.revoked !== '', a.votes])).toEqual([
      ['alice', false, 0],
      ['bob', true, 0],
    ]);
    const unknown = await runArena(['annotators', 'revoke', 'carol', '--db', db]);
    expect(unknown.stderr).toContain('no annotator named "carol"');
  });

  it('export votes --judge annotators writes the HF shape (bothbad kept) and arena import reads the same votes back', async () => {
    const dir = tmpDir('arena-export-votes-');
    const db = join(dir, 'arena.db');
    const store = openSqliteStore(db);
    await store.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
    });
    const q = QUESTIONS[0]!;
    const [m1, m2] = [...new Set(ANSWERS.map((a) => a.model))].sort();
    const a = await store.annotators.add('alice', 'h', 1);
    const choices = [
      ['A', 'AB'],
      ['bothbad', 'BA'],
    ] as const;
    for (const [k, [choice, order]] of choices.entries()) {
      const n = await store.annotators.show(
        a.id,
        { questionId: q.id, turn: k + 1, model1: m1!, model2: m2! },
        order,
        2,
      );
      await store.annotators.answer({ annotation: n, choice, reason: null, at: 3 + k });
    }
    await store.close();
    const out = join(dir, 'votes.jsonl');
    const r = await runArena(['export', 'votes', '--db', db, '--judge', 'annotators', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => [x.question_id, x.model_a, x.model_b, x.winner, x.judge, x.turn])).toEqual([
      [q.id, m1, m2, 'model_a', `annotator_${a.id}`, 1],
      [q.id, m1, m2, 'tie (bothbad)', `annotator_${a.id}`, 2],
    ]);
    expect(Object.keys(rows[0])).toEqual([
      'question_id',
      'model_a',
      'model_b',
      'winner',
      'judge',
      'conversation_a',
      'conversation_b',
      'turn',
    ]);
    expect(rows[0].conversation_a[0]).toEqual({ role: 'user', content: q.turns[0] });
    const db2 = join(dir, 'other.db');
    const s2 = openSqliteStore(db2);
    await s2.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
    });
    await s2.close();
    const imp = await runArena(['import', 'votes', out, '--db', db2]);
    expect(imp.code, imp.stderr).toBe(0);
    const back = openSqliteStore(db2);
    expect((await back.votes.list('annotators')).map((v) => [v.turn, v.winner, v.voter])).toEqual([
      [1, 'model_1', `annotator_${a.id}`],
      [2, 'tie', `annotator_${a.id}`],
    ]);
    await back.close();
    const none = await runArena(['export', 'votes', '--db', db, '--judge', 'human', '--out', out]);
    expect(none.stderr).toContain('--judge');
  });
});
