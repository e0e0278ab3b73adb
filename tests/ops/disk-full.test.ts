// A full disk under `arena refresh` and `arena checkpoints run`, on a real small filesystem (a tmpfs: root only,
// skipped elsewhere; tests/engine/disk-full.test.ts does the same for `arena run`). Once the database refuses a
// write: no more judge calls, the replies already paid for go to the recovery file beside the database, the run is
// marked failed with the reason, the command ends non-zero with one line; the next job on the database stores the
// recovered replies first and pays for nothing twice. The test server's request log (kept off the small disk) is
// the independent count of paid calls.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spilledFiles } from '../../src/storage/recovery.ts';
import { REPO_ROOT, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { spawnOpenAIServer, type SpawnedOpenAIServer } from '../support/openai-server.ts';
import { smallDisk } from '../support/small-disk.ts';

const work = tmpDir('arena-ops-disk-full-');
const disk = smallDisk(work);
const OWN = join(REPO_ROOT, 'questions');
const answers = (m: string) => join(OWN, 'answers', `${m}.jsonl`);

let server: SpawnedOpenAIServer | undefined;
afterEach(async () => {
  disk.unfill();
  await server?.close();
  server = undefined;
});
afterAll(() => disk.unmount());

const count = (db: string, sql: string) => {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare(sql).get() as { n: number }).n;
  } finally {
    d.close();
  }
};

/** The database with our own questions, answers and prompts (imported while there is room). */
async function seeded(name: string): Promise<string> {
  const db = join(disk.dir, name);
  await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
  await arenaOk([
    'import',
    'answers',
    ...['arena-drift', 'arena-echo', 'arena-sage'].map(answers),
    '--db',
    db,
  ]);
  await arenaOk(['import', 'prompts', join(OWN, 'judge_prompts.jsonl'), '--db', db]);
  return db;
}

/**
 * `args` on a disk with `keep` bytes free: it must stop in one line naming the recovery file, with the run failed
 * and fewer calls than planned; then, with room again, the same command stores the recovered replies and plays the
 * rest: every planned game stored once, as many calls as games.
 */
async function stopsAndRecovers(db: string, args: string[], planned: number, keep: number) {
  const calls = () => server!.readLog().filter((e) => e.path === '/v1/chat/completions').length;
  disk.fill(keep);
  // a process of its own: its leases die with it, as a real stopped job's do (in this process they would live on)
  const r = await runArena(args, { spawn: true });
  expect(r.code, r.stdout + r.stderr).not.toBe(0);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const line = r.stderr.split('\n').find((l) => l.startsWith('arena: '));
  expect(line, r.stderr).toMatch(/run \S+ stopped: the database refused a write: .*full/);
  const spilled = spilledFiles(db, tmpdir());
  // a recovery file exactly when a paid reply could not be stored (a write refused while no reply was waiting,
  // which a loaded machine's timing can give, leaves nothing to recover)
  expect(spilled.length).toBeLessThanOrEqual(1);
  if (spilled.length) expect(line).toContain(spilled[0]!);
  const paid = calls();
  const stored = count(db, 'select count(*) n from games');
  expect(paid).toBeLessThan(planned);
  // every paid reply is stored or in the recovery file
  const inFile = spilled.length
    ? (await import('node:fs'))
        .readFileSync(spilled[0]!, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{"game"')).length
    : 0;
  expect(stored + inFile).toBe(paid);
  if (spilled.length) expect(inFile).toBeGreaterThan(0);

  disk.unfill();
  const again = await runArena(args);
  expect(again.code, again.stderr).toBe(0);
  if (inFile)
    expect(again.stderr).toContain(`stored ${inFile} verdict(s) an earlier run paid for but could not store`);
  expect(spilledFiles(db, tmpdir())).toEqual([]);
  expect(count(db, 'select count(*) n from games')).toBe(planned);
  expect(calls()).toBe(planned);
  expect(
    count(db, "select count(*) n from runs where status = 'failed' and config like '%refused a write%'"),
  ).toBe(1);
}

describe.skipIf(!disk.mounted)('a full disk under the ops jobs', { timeout: 240_000 }, () => {
  it('arena refresh keeps the paid replies in the recovery file; the next refresh stores them', async () => {
    const db = await seeded('refresh.db');
    server = await spawnOpenAIServer({ latencyMs: 5, verdict: 'longer', logFile: join(work, 'refresh.log') });
    const cfg = join(work, 'refresh.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        db,
        questions: [join(OWN, 'arena.jsonl')],
        prompts: [join(OWN, 'judge_prompts.jsonl')],
        answers: ['arena-drift', 'arena-echo', 'arena-sage'].map(answers),
        promptSet: 'arena',
        turns: [1],
        judges: [{ id: 'openai/judge', baseURL: server.url, concurrency: 8, retries: 0 }],
      }),
    );
    // 24 questions x 3 pairs x 1 turn x 2 orders
    await stopsAndRecovers(db, ['refresh', '--config', cfg], 144, 600 * 1024);
  });

  it('arena checkpoints run keeps the paid replies in the recovery file; the next run stores them', async () => {
    const db = await seeded('checkpoints.db');
    server = await spawnOpenAIServer({ latencyMs: 5, verdict: 'longer', logFile: join(work, 'ckpt.log') });
    const cfg = join(work, 'checkpoints.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        db,
        series: 'disk',
        questions: [join(OWN, 'arena.jsonl')],
        prompts: [join(OWN, 'judge_prompts.jsonl')],
        promptSet: 'arena',
        baseline: { model: 'arena-sage', answers: answers('arena-sage') },
        checkpoints: [
          { name: 'step-1', step: 1, model: 'arena-echo', answers: answers('arena-echo') },
          { name: 'step-2', step: 2, model: 'arena-drift', answers: answers('arena-drift') },
        ],
        judges: [{ id: 'openai/judge', baseURL: server.url, concurrency: 8, retries: 0 }],
      }),
    );
    // 24 questions x 2 checkpoints against the baseline x 2 turns x 2 orders
    await stopsAndRecovers(db, ['checkpoints', 'run', '--config', cfg], 192, 400 * 1024);
  });
});
