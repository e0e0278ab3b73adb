// A user's own files imported again (the same file, its .gz copy, a pairs directory): nothing duplicated, counts
// say what was added; a pairs directory laid out one level off is a located error, never skipped.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { sqlCount } from '../support/stored-game.ts';

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

describe('importing the same judgments again', () => {
  const dir = tmpDir('arena-import-again-');
  const db = join(dir, 'arena.db');
  const questions = join(dir, 'question.jsonl');
  writeFileSync(
    questions,
    jsonl([1, 2, 3].map((id) => ({ question_id: id, category: 'writing', turns: ['first?', 'second?'] }))),
  );
  // a judgment file of the user's own judge: served by software whose name is not the judge's
  const lines = [1, 2, 3].map((id) => ({
    question_id: id,
    model_1: 'm1',
    model_2: 'm2',
    // line 2's first game is recorded as model_2 while FastChat reads its text as model_1: kept as recorded
    g1_winner: id === 2 ? 'model_2' : 'model_1',
    g2_winner: id === 3 ? 'model_1' : 'model_2',
    judge: ['my-serving-software', 'pair-v2'],
    g1_user_prompt: `p1 ${id}`,
    g1_judgment: 'A is better. [[A]]',
    g2_user_prompt: `p2 ${id}`,
    g2_judgment: id === 3 ? 'B is better. [[B]]' : 'A is better. [[A]]',
    turn: 1,
    tstamp: 1700000000 + id,
  }));
  const plain = join(dir, 'mine_pair.jsonl');
  const gz = join(dir, 'mine_pair.jsonl.gz');
  writeFileSync(plain, jsonl(lines));
  writeFileSync(gz, gzipSync(jsonl(lines)));

  it('counts only the games it adds, and says how many were already there', async () => {
    await arenaOk(['import', 'questions', '--db', db, questions]);
    const first = await arenaOk(['import', 'judgments', '--db', db, '--judge', 'my-judge', plain]);
    expect(first).toContain(': 6 games');
    expect(first).toContain('1 of 6 recorded verdict(s) differ');
    expect(sqlCount(db, "select count(*) n from games where judge = 'my-judge'")).toBe(6);

    // the same file again, and its gzip copy: nothing new, and the output says so
    for (const f of [plain, gz]) {
      const again = await arenaOk(['import', 'judgments', '--db', db, '--judge', 'my-judge', f]);
      expect(again).not.toContain('6 games');
      expect(again).toContain('imported into');
      expect(again).toContain('6 of 6 game(s) were already stored');
      expect(again).not.toContain('kept as recorded'); // nothing was kept: it was all there
      expect(sqlCount(db, "select count(*) n from games where judge = 'my-judge'")).toBe(6);
    }

    // both files at once under another name: 6 new games, the other 6 counted as repeats
    const both = await arenaOk(['import', 'judgments', '--db', db, '--judge', 'my-judge-2', plain, gz]);
    expect(both).toContain(': 6 games');
    expect(both).toContain('6 of 12 game(s) were already stored or repeated');
    expect(sqlCount(db, 'select count(*) n from games')).toBe(12);
  }, 120_000);

  it('reparse of a misspelled judge is a usage error naming the judges with games, not "0 games re-parsed"', async () => {
    const typo = await runArena(['reparse', '--db', db, '--judge', 'my-judg', '--parser', 'lenient']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain(
      '--judge "my-judg" has no stored games (judges with games: my-judge, my-judge-2)',
    );
    const r = JSON.parse(
      await arenaOk([
        'reparse',
        '--db',
        db,
        '--judge',
        'my-judge',
        '--parser',
        'lenient',
        '--dry-run',
        '--json',
      ]),
    ) as Record<string, unknown>;
    expect(Array.isArray(r)).toBe(false);
    expect(r).toMatchObject({ parser: 'lenient@1', games: 6, changed: 1 }); // the recorded verdict of line 2, read from its text
    // judges --report left a misspelled judge out and reported the other alone
    const report = await runArena([
      'judges',
      '--report',
      '--db',
      db,
      '--judge',
      'my-judg,my-judge-2',
      '--json',
    ]);
    expect(report.code).toBe(1);
    expect(report.stderr).toContain(
      '--judge: no tournament games or votes for "my-judg" (judges: my-judge, my-judge-2)',
    );
    const both = JSON.parse(
      await arenaOk(['judges', '--report', '--db', db, '--judge', 'my-judge,my-judge-2', '--json']),
    ) as { agreement: { judge1: string; judge2: string; total: number; agree: number }[] };
    expect(both.agreement.find((a) => a.total > 0)).toMatchObject({
      judge1: 'my-judge',
      judge2: 'my-judge-2',
      total: 3,
      agree: 3,
    });
    // its --help says what --json prints (an object, not the shared "one JSON array")
    expect(await arenaOk(['reparse', '--help'])).toContain('print the report as one JSON object');
  }, 120_000);
});

describe('importing the same pairs directory again', () => {
  const dir = tmpDir('arena-pairs-again-');
  const db = join(dir, 'arena.db');
  const root = join(dir, 'sets');
  const items = [1, 2, 3].map((k) => ({
    input: `Do task ${k}.`,
    output_1: `good ${k}`,
    output_2: `bad ${k}`,
    label: k === 2 ? '2' : 1,
  }));
  const setDir = join(root, 'Mine');
  mkdirSync(join(setDir, 'evaluators', 'MyLLM', 'Plain'), { recursive: true });
  writeFileSync(join(setDir, 'dataset.json'), JSON.stringify(items, null, 2));
  // string verdicts "1"/"2" as LLMBar writes them
  const result = items.map((it) => ({
    ...it,
    results: [
      {
        'swap = False': { completion: ['Output (a)', 'stop'], winner: '1' },
        'swap = True': { completion: ['Output (b)', 'stop'], winner: '1' },
      },
    ],
  }));
  writeFileSync(join(setDir, 'evaluators', 'MyLLM', 'Plain', 'result.json'), JSON.stringify(result, null, 2));

  it('adds the games once and says the second time that they were already stored', async () => {
    const first = await arenaOk(['import', 'pairs', '--db', db, root]);
    expect(first).toContain('1 set(s), 3 items, 3 gold labels, 6 games');
    const again = await arenaOk(['import', 'pairs', '--db', db, root]);
    expect(again).toContain('0 games (6 already stored, left as they are)');
    expect(sqlCount(db, 'select count(*) n from games')).toBe(6);
    expect(sqlCount(db, "select count(*) n from votes where judge = 'gold'")).toBe(3);
  }, 120_000);

  it('run --set with a misspelled set names the sets there are (not "import one")', async () => {
    const r = await runArena([
      'run',
      '--db',
      db,
      '--judge',
      'mock/a',
      '--set',
      'mine',
      '--prompts',
      'llmbar',
    ]);
    expect(r.code).toBe(1);
    // a usage error that names the sets there are, with a near miss suggested (src/cli/validate.ts)
    expect(r.stderr).toMatch(/--set: unknown labelled pair set "mine".*Mine/s);
    expect(r.stderr).not.toMatch(/import one/);
    expect(sqlCount(db, 'select count(*) n from games')).toBe(6);
  }, 120_000);

  it('judges --board with a misspelled judge names the judges on the board (it printed "no judges in the database", exit 0)', async () => {
    const r = await runArena(['judges', '--board', '--db', db, '--judge', 'MyLLM/plain']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no judge "MyLLM/plain" on the judge leaderboard (judges: MyLLM/Plain;');
    const ok = JSON.parse(
      await arenaOk(['judges', '--board', '--db', db, '--judge', 'MyLLM/Plain', '--json']),
    ) as { judge: string; games: number }[];
    expect(ok.map((b) => [b.judge, b.games])).toEqual([['MyLLM/Plain', 6]]);
  }, 120_000);

  it('the same set imported from another directory level is a located error, not a second copy of every item', async () => {
    const top = join(dir, 'top');
    const suite = join(top, 'suite');
    mkdirSync(join(suite, 'Mine'), { recursive: true });
    writeFileSync(join(suite, 'Mine', 'dataset.json'), JSON.stringify(items, null, 2));
    const db3 = join(dir, 'levels.db');
    await arenaOk(['import', 'pairs', '--db', db3, suite]); // set "Mine"
    const r = await runArena(['import', 'pairs', '--db', db3, top]); // would be set "suite/Mine"
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${join(suite, 'Mine', 'dataset.json')}:2: this set is already stored as "Mine" (imported from another directory level)`,
    );
    expect(sqlCount(db3, 'select count(*) n from questions')).toBe(3);
  }, 120_000);

  it('a result.json directly under evaluators/<LLM>/ is a located error, not silently skipped', async () => {
    const other = join(dir, 'other');
    const s = join(other, 'Natural');
    mkdirSync(join(s, 'evaluators', 'MyLLM'), { recursive: true });
    writeFileSync(join(s, 'dataset.json'), JSON.stringify(items));
    const misplaced = join(s, 'evaluators', 'MyLLM', 'result.json');
    writeFileSync(misplaced, JSON.stringify(result));
    const db2 = join(dir, 'other.db');
    const r = await runArena(['import', 'pairs', '--db', db2, other]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${misplaced}: a result.json belongs in evaluators/<LLM>/<strategy>/result.json`,
    );
  }, 120_000);
});
