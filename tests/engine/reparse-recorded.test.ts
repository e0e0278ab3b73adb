// Imported verdicts are kept beside the parsed ones (games.recorded_verdict), so `--parser recorded` restores them
// byte for byte after any other parser; an older database gets the column filled by its migration.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { undoMigrationsFrom } from '../support/migrations.ts';
import { sqlRows } from '../support/stored-game.ts';

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const EXISTING =
  'id, run_id, judge, judge_settings, prompt_name, question_id, category, turn, model_1, model_2, "order", ' +
  'system_prompt, user_prompt, reply, verdict, parser, tokens_in, tokens_out, latency_ms, created_at, source, ' +
  'cost, verdict_probs, entropy';

/** every existing column of every game, as its stored type and bytes (hex), by id */
function stored(db: string): Record<string, unknown>[] {
  const cols = EXISTING.split(', ').map(
    (c) => `typeof(${c}) || ':' || hex(${c}) AS "${c.replaceAll('"', '')}"`,
  );
  return sqlRows(db, `SELECT ${cols.join(', ')} FROM games ORDER BY id`);
}
const recordedColumn = (db: string): (string | null)[] =>
  sqlRows<{ r: string | null }>(db, 'SELECT recorded_verdict AS r FROM games ORDER BY id').map((x) => x.r);

function setup(name: string): { db: string; file: string; questions: string } {
  const dir = tmpDir(`arena-${name}-`);
  const questions = join(dir, 'question.jsonl');
  writeFileSync(
    questions,
    jsonl([1, 2, 3, 4].map((id) => ({ question_id: id, category: 'writing', turns: ['first?', 'second?'] }))),
  );
  // replies the parsers read differently: the recorded verdicts come from the judge's own (unknown) parser
  const replies = ['Assistant A is better. [A]', '"[[A]]" if A is better ... [[B]]', 'no verdict', '[[C]]'];
  const lines = [1, 2, 3, 4].map((id) => ({
    question_id: id,
    model_1: 'm1',
    model_2: 'm2',
    g1_winner: ['model_1', 'model_2', 'model_1', 'tie'][id - 1],
    g2_winner: ['model_2', 'model_2', 'tie', 'tie'][id - 1],
    judge: ['study-judge', 'pair-v2'],
    g1_user_prompt: `p1 ${id}`,
    g1_judgment: replies[id - 1],
    g2_user_prompt: `p2 ${id}`,
    g2_judgment: replies[(id + 1) % 4],
    turn: 1,
    tstamp: 1700000000 + id,
  }));
  const file = join(dir, 'study_pair.jsonl');
  writeFileSync(file, jsonl(lines));
  return { db: join(dir, 'arena.db'), file, questions };
}

describe('reparse keeps the recorded verdicts', () => {
  it('--parser recorded restores every recorded verdict after lenient and last, byte for byte', async () => {
    const { db, file, questions } = setup('recorded');
    await arenaOk(['import', 'questions', '--db', db, questions]);
    await arenaOk(['import', 'judgments', '--db', db, file]);
    const before = stored(db);
    expect(before).toHaveLength(8);
    const recorded = recordedColumn(db);
    expect(recorded.every((r) => r !== null)).toBe(true);

    for (const parser of ['lenient', 'last']) {
      const r = await arenaJson<{ changed: number }>(['reparse', '--parser', parser, '--db', db, '--json']);
      expect(r.changed).toBeGreaterThan(0);
      expect(stored(db)).not.toEqual(before);
      expect(recordedColumn(db)).toEqual(recorded); // kept while the verdicts change
    }
    const back = await runArena(['reparse', '--parser', 'recorded', '--db', db]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/8 games re-parsed with recorded: [1-9]\d* verdict\(s\) changed/);
    expect(stored(db)).toEqual(before);
    // and again: nothing left to restore
    expect(await arenaOk(['reparse', '--parser', 'recorded', '--db', db])).toContain('0 verdict(s) changed');
  }, 120_000);

  it('games played here have no recorded verdict: --parser recorded leaves them and says so', async () => {
    const { db, file, questions } = setup('played');
    await arenaOk(['import', 'questions', '--db', db, questions]);
    await arenaOk(['import', 'judgments', '--db', db, file]);
    const d = new Database(db);
    try {
      // a game as a run stores it: no recorded verdict
      d.prepare(
        "UPDATE games SET source = 'run', recorded_verdict = NULL, verdict = 'model_2', parser = 'last@1' WHERE id = (SELECT min(id) FROM games)",
      ).run();
    } finally {
      d.close();
    }
    const out = await arenaOk(['reparse', '--parser', 'recorded', '--db', db]);
    expect(out).toContain('1 game(s) have no recorded verdict (played here, not imported): left as they are');
  }, 120_000);

  it('a database from before the column gets it filled by the migration; ids and existing columns unchanged', async () => {
    const { db, file, questions } = setup('migrate');
    await arenaOk(['import', 'questions', '--db', db, questions]);
    await arenaOk(['import', 'judgments', '--db', db, file]);
    const before = stored(db);
    const recorded = recordedColumn(db);
    // back to the schema of the migration before: no column, the migration not applied (nor the later ones)
    const d = new Database(db);
    try {
      undoMigrationsFrom(d, '0006_games_recorded_verdict');
    } finally {
      d.close();
    }
    expect(stored(db)).toEqual(before);
    // opening it migrates: the recorded verdicts are there, every other byte as it was
    await arenaOk(['reparse', '--parser', 'lenient', '--db', db]);
    expect(recordedColumn(db)).toEqual(recorded);
    await arenaOk(['reparse', '--parser', 'recorded', '--db', db]);
    expect(stored(db)).toEqual(before);
  }, 120_000);
});
