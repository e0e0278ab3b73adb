// A full disk under `arena run` and `arena import` on a tmpfs (root only; elsewhere play-disk-full.test.ts covers the
// play loop): no more calls, paid replies spilled and stored by the next run, the run failed with the reason, one
// line and a non-zero exit. The server's request log (off the small disk) counts the paid calls.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spilledFiles } from '../../src/storage/recovery.ts';
import { REPO_ROOT, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { sqlCount } from '../support/stored-game.ts';

const dir = tmpDir('arena-disk-full-');
const mnt = join(dir, 'small');
const OWN = join(REPO_ROOT, 'questions');
const MTBENCH = process.env.MTBENCH_DIR ?? join(REPO_ROOT, '..', 'shared', 'mt_bench');
const ANSWERS = ['arena-drift', 'arena-echo', 'arena-sage'].map((m) => join(OWN, 'answers', `${m}.jsonl`));

function tryMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    mkdirSync(mnt, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', mnt], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const mounted = tryMount();

let server: OpenAIServer | undefined;
afterEach(async () => {
  rmSync(join(mnt, 'filler'), { force: true });
  await server?.close();
  server = undefined;
});
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
});

/** Leave about `keep` bytes free on the small disk. */
function fill(keep: number): string {
  const filler = join(mnt, 'filler');
  const st = statfsSync(mnt);
  writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - keep)));
  return filler;
}

const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at /);

describe.skipIf(!mounted)('a full disk', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    rmSync(join(mnt, 'filler'), { force: true });
  });

  it('arena run: stops calling, keeps the paid verdicts, fails in one line; the next run stores them and pays nothing twice', async () => {
    const db = join(mnt, 'run.db');
    await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
    await arenaOk(['import', 'answers', ...ANSWERS, '--db', db]);
    await arenaOk(['import', 'prompts', join(OWN, 'judge_prompts.jsonl'), '--db', db]);
    server = await startOpenAIServer({ latencyMs: 5, verdict: 'longer' });
    const args = ['run', '--judge', 'openai/judge', '--base-url', server.url, '--db', db];
    args.push('--models', 'arena-drift,arena-echo,arena-sage', '--concurrency', '8', '--retries', '0');
    const planned = Number(
      /(\d+) games planned/.exec((await runArena([...args, '--dry-run'])).stdout)?.[1] ?? NaN,
    );
    expect(planned).toBeGreaterThan(100);
    const filler = fill(600 * 1024);

    const r = await runArena(args);
    const calls = () => server!.log.filter((e) => e.path === '/v1/chat/completions').length;
    const paid = calls();
    expect(r.code).not.toBe(0);
    noStack(r.stderr);
    expect(r.stderr).toMatch(/^arena: run \S+ stopped: the database refused a write: .*full/m);
    const stored = sqlCount(db, 'select count(*) n from games');
    expect(stored, r.stderr).toBeGreaterThan(0);
    expect(stored).toBeLessThan(planned);
    // it stopped: far fewer calls than planned, and every paid reply is stored or spilled
    expect(paid).toBeLessThan(planned);
    const spilled = spilledFiles(db, tmpdir());
    expect(spilled).toHaveLength(1);
    expect(r.stderr).toContain(spilled[0]!);

    // space again: the next run stores the spilled verdicts first, then plays only what is missing
    rmSync(filler);
    const again = await runArena(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/stored \d+ verdict\(s\) an earlier run paid for/);
    expect(spilledFiles(db, tmpdir())).toEqual([]);
    expect(sqlCount(db, 'select count(*) n from games')).toBe(planned);
    // no reply paid for twice, none lost
    expect(calls()).toBe(planned);
    expect(
      sqlCount(db, "select count(*) n from runs where status = 'failed' and config like '%refused a write%'"),
    ).toBe(1);
  });

  it.skipIf(!existsSync(join(MTBENCH, 'question.jsonl')))(
    'arena import on a full disk: one line, no stack trace, exit 1, nothing half-imported',
    async () => {
      const db = join(mnt, 'import.db');
      await arenaOk(['import', 'questions', join(MTBENCH, 'question.jsonl'), '--db', db]);
      // room to open the database, not for the answers (about 700 KB)
      const filler = fill(128 * 1024);
      const answers = ['claude-v1', 'gpt-3.5-turbo', 'gpt-4', 'llama-13b'];
      const r = await runArena([
        'import',
        'answers',
        ...answers.map((m) => join(MTBENCH, 'model_answer', `${m}.jsonl`)),
        '--db',
        db,
      ]);
      rmSync(filler);
      expect(r.code).toBe(1);
      noStack(r.stderr);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^arena: the disk is full \(.*\): .*free some space/);
      expect(sqlCount(db, 'select count(*) n from answers')).toBe(0);
    },
  );
});
