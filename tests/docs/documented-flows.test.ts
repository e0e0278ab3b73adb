// The documented flows on the `npm start` database: questions/README.md's commands as written, and
// `arena refresh --config examples/refresh.json`, whose plan defaults to the questions the models answered.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { docBlocks } from '../support/doc-blocks.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../support/materials.ts';
import { npmStartDatabase } from '../support/npm-start.ts';

const DIR = MTBENCH_DIR;
skipWhy('documented-flows', noMtbench('the release `npm start` imports'));

/** The ```sh block of questions/README.md's "Import and a dry run" section, one command per line. */
function readmeCommands(): string[][] {
  const block = docBlocks(join(REPO_ROOT, 'questions', 'README.md')).find(
    (b) => b.lang === 'sh' && b.heading === 'Import and a dry run',
  )!;
  return block.text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(/\s+/));
}

describe.skipIf(!DIR)('documented flows on the database `npm start` creates', { timeout: 420_000 }, () => {
  let db: string;
  beforeAll(async () => {
    // the run's shared `arena start` database (tests/support/npm-start.ts), a copy of it for this file
    db = (await npmStartDatabase()).db;
  }, 420_000);

  it("questions/README.md's commands run as written and plan only our 24 questions (576 games)", async () => {
    const cmds = readmeCommands();
    expect(cmds.map((c) => c[1])).toEqual(['import', 'import', 'import', 'run', 'standings']);
    let runOut = '';
    for (const cmd of cmds) {
      expect(cmd[0]).toBe('./bin/arena.mjs');
      // as a shell would run it: the glob expanded, and --db pointing at the npm start database
      const args = cmd.slice(1).flatMap((a) =>
        a.endsWith('*.jsonl')
          ? readdirSync(join(REPO_ROOT, dirname(a)))
              .filter((f) => f.endsWith('.jsonl'))
              .sort()
              .map((f) => join(dirname(a), f))
          : [a === 'arena.db' ? db : a],
      );
      const r = await runArena(args, { timeoutMs: 300_000 });
      expect(r.code, `${cmd.join(' ')}\n${r.stderr}`).toBe(0);
      if (cmd[1] === 'run') runOut = r.stdout + r.stderr;
      if (cmd[1] === 'standings')
        for (const m of ['arena-sage', 'arena-swift', 'arena-drift', 'arena-echo'])
          expect(r.stdout).toMatch(new RegExp(`^${m}\\s`, 'm'));
    }
    expect(runOut).toMatch(/576 games planned/);
    expect(runOut).toMatch(/576 played, 0 failed/);
  });

  it('`arena refresh --config examples/refresh.json` (its paths moved to this database) runs', async () => {
    const example = JSON.parse(readFileSync(join(REPO_ROOT, 'examples', 'refresh.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const from = join(REPO_ROOT, 'examples');
    const abs = (p: string) => resolve(from, p);
    const cfg = {
      ...example,
      db,
      questions: (example.questions as string[]).map(abs),
      prompts: (example.prompts as string[]).map(abs),
      answers: (example.answers as string[]).map(abs),
    };
    const file = join(tmpDir(), 'refresh.json');
    writeFileSync(file, JSON.stringify(cfg));
    const r = await runArena(['refresh', '--config', file], { timeoutMs: 300_000 });
    expect(r.code, r.stderr).toBe(0);
    const sqlite = new Database(db, { readonly: true });
    try {
      // every game of the refresh is on our own questions; the MT-Bench release is untouched
      const row = sqlite
        .prepare("select min(question_id) lo, max(question_id) hi from games where judge = 'mock/longer'")
        .get() as { lo: number; hi: number };
      expect(row.lo).toBeGreaterThanOrEqual(1001);
      expect(row.hi).toBeLessThanOrEqual(1024);
      expect(
        (
          sqlite.prepare('select count(*) n from questions where id between 81 and 160').get() as {
            n: number;
          }
        ).n,
      ).toBe(80);
    } finally {
      sqlite.close();
    }
  });
});
