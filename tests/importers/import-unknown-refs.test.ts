// Votes naming unknown models or questions: a whole release is all or nothing (a located error, nothing written);
// a single file imports the rest with a located warning per row, so no model is invented.
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';

const dir = tmpDir('arena-unknown-refs-');
const OWN = join(REPO_ROOT, 'questions');
const MODELS = ['arena-drift', 'arena-echo'];
const Q = JSON.parse(readFileSync(join(OWN, 'arena.jsonl'), 'utf8').split('\n')[0]!) as {
  question_id: number;
};

const votesCsv = (rows: string[]) => `question_id,model_a,model_b,winner,judge,turn\n${rows.join('\n')}\n`;
const GOOD = [
  `${Q.question_id},arena-drift,arena-echo,model_a,expert_1,1`,
  `${Q.question_id},arena-echo,arena-drift,tie,expert_2,1`,
];

/** a release laid out as FastChat's data/mt_bench: questions, two models' answers, human votes */
function release(name: string, votes: string[]): string {
  const d = join(dir, name);
  mkdirSync(join(d, 'model_answer'), { recursive: true });
  mkdirSync(join(d, 'human_judgments'), { recursive: true });
  copyFileSync(join(OWN, 'arena.jsonl'), join(d, 'question.jsonl'));
  for (const m of MODELS)
    copyFileSync(join(OWN, 'answers', `${m}.jsonl`), join(d, 'model_answer', `${m}.jsonl`));
  writeFileSync(join(d, 'human_judgments', 'mt_bench_human.csv'), votesCsv(votes));
  return d;
}

describe('votes about unknown models or questions', () => {
  it('a whole release with one is an error naming file, line and field, and leaves no database', async () => {
    const d = release('bad-release', [
      ...GOOD,
      `${Q.question_id},arena-drift,nonexistent-model,model_b,expert_3,1`,
    ]);
    const db = join(dir, 'release.db');
    const r = await runArena(['import', 'mtbench', '--dir', d, '--db', db]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `${join(d, 'human_judgments', 'mt_bench_human.csv')}:4: field "model_b": vote on unknown model "nonexistent-model"`,
    );
    const r2 = await runArena([
      'import',
      'mtbench',
      '--dir',
      release('bad-question', [...GOOD, `99999,arena-drift,arena-echo,model_b,expert_3,1`]),
      '--db',
      db,
    ]);
    expect(r2.code, r2.stderr).toBe(1);
    expect(r2.stderr).toMatch(/mt_bench_human\.csv:4: field "question_id": vote on unknown question 99999/);
    // the same release without the bad rows imports
    expect(await arenaOk(['import', 'mtbench', '--dir', release('good-release', GOOD), '--db', db])).toMatch(
      /2 votes/,
    );
  });

  it('a single file imports its good votes and warns, with file and line, about each one it skips; the model is not invented', async () => {
    const db = join(dir, 'single.db');
    await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
    await arenaOk([
      'import',
      'answers',
      ...MODELS.map((m) => join(OWN, 'answers', `${m}.jsonl`)),
      '--db',
      db,
    ]);
    const file = join(dir, 'votes.csv');
    writeFileSync(
      file,
      votesCsv([
        GOOD[0]!,
        `${Q.question_id},nonexistent-model,arena-echo,model_a,expert_3,1`,
        `424242,arena-drift,arena-echo,model_a,expert_4,1`,
        GOOD[1]!,
      ]),
    );
    const r = await runArena(['import', 'votes', file, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/2 votes \(2 row\(s\) skipped, see the warnings\)/);
    expect(r.stderr).toContain(
      `warning: ${file}:3: field "model_a": vote on unknown model "nonexistent-model"`,
    );
    expect(r.stderr).toContain(`warning: ${file}:4: field "question_id": vote on unknown question 424242`);
    const d = new Database(db, { readonly: true });
    expect(d.prepare('SELECT line FROM votes ORDER BY line').all()).toEqual([{ line: 2 }, { line: 5 }]);
    d.close();
    const standings = await arenaJson<unknown>(['standings', '--db', db, '--judge', 'human']);
    expect(JSON.stringify(standings)).not.toContain('nonexistent-model');
  });
});
