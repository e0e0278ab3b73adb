// A full disk under `arena refresh` (chat and Batch API) and `arena checkpoints run` on a tmpfs (root only; skipped
// elsewhere; tests/engine/disk-full.test.ts does `arena run`): no more calls, paid replies to the recovery file, the
// run failed in one line; the next job stores them first. The server's log (off the small disk) counts paid calls.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spilledFiles } from '../../src/storage/recovery.ts';
import { REPO_ROOT, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { smallDisk } from '../support/small-disk.ts';
import { sqlCount, sqlRows } from '../support/stored-game.ts';

const work = tmpDir('arena-ops-disk-full-');
const disk = smallDisk(work);
const OWN = join(REPO_ROOT, 'questions');
const answers = (m: string) => join(OWN, 'answers', `${m}.jsonl`);

let server: OpenAIServer | undefined;
afterEach(async () => {
  disk.unfill();
  await server?.close();
  server = undefined;
});
afterAll(() => disk.unmount());

interface RunRow {
  id: string;
  status: string;
  config: string;
  played: number;
  tokens_in: number;
  tokens_out: number;
  cost: number | null;
}
const readRuns = (db: string) =>
  sqlRows<RunRow>(db, 'select id, status, config, played, tokens_in, tokens_out, cost from runs');
/** what a run's record says it played, its tokens and cost (to 1e-9 USD) */
const ledger = (r: RunRow) => ({
  played: r.played,
  tokensIn: r.tokens_in,
  tokensOut: r.tokens_out,
  cost: Math.round((r.cost ?? 0) * 1e9),
});
/** the same, summed over the run's stored games */
function ledgerOfGames(db: string, runId: string) {
  const [g] = sqlRows<{ n: number; i: number; o: number; c: number }>(
    db,
    'select count(*) n, coalesce(sum(tokens_in), 0) i, coalesce(sum(tokens_out), 0) o, coalesce(sum(cost), 0) c from games where run_id = ?',
    runId,
  );
  return { played: g!.n, tokensIn: g!.i, tokensOut: g!.o, cost: Math.round(g!.c * 1e9) };
}

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

/** how many paid verdicts a recovery file holds (one line each) */
const gamesIn = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"game"')).length;

/** A refresh config (turn 1 of our own questions, three models) judged by `judge`, written as `name`. */
function refreshConfig(name: string, db: string, judge: Record<string, unknown>): string {
  const cfg = join(work, name);
  writeFileSync(
    cfg,
    JSON.stringify({
      db,
      questions: [join(OWN, 'arena.jsonl')],
      prompts: [join(OWN, 'judge_prompts.jsonl')],
      answers: ['arena-drift', 'arena-echo', 'arena-sage'].map(answers),
      promptSet: 'arena',
      turns: [1],
      judges: [{ id: 'openai/judge', baseURL: server!.url, ...judge }],
    }),
  );
  return cfg;
}

/**
 * `args` with `keep` bytes free stops in one line naming the recovery file, the run failed; with room again it
 * stores the recovered replies and plays the rest: every game stored once, as many calls as games.
 */
async function stopsAndRecovers(db: string, args: string[], planned: number, keep: number) {
  const calls = () => server!.log.filter((e) => e.path === '/v1/chat/completions').length;
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
  const stored = sqlCount(db, 'select count(*) n from games');
  expect(paid).toBeLessThan(planned);
  // every paid reply is stored or in the recovery file
  const inFile = spilled.length ? gamesIn(spilled[0]!) : 0;
  expect(stored + inFile).toBe(paid);
  if (spilled.length) expect(inFile).toBeGreaterThan(0);

  disk.unfill();
  const again = await runArena(args);
  expect(again.code, again.stderr).toBe(0);
  if (inFile)
    expect(again.stderr).toContain(`stored ${inFile} verdict(s) an earlier run paid for but could not store`);
  expect(spilledFiles(db, tmpdir())).toEqual([]);
  expect(sqlCount(db, 'select count(*) n from games')).toBe(planned);
  expect(calls()).toBe(planned);
  expect(
    sqlCount(db, "select count(*) n from runs where status = 'failed' and config like '%refused a write%'"),
  ).toBe(1);
}

describe.skipIf(!disk.mounted)('a full disk under the ops jobs', { timeout: 240_000 }, () => {
  it('arena refresh keeps the paid replies in the recovery file; the next refresh stores them', async () => {
    const db = await seeded('refresh.db');
    server = await startOpenAIServer({ latencyMs: 5, verdict: 'longer' });
    const cfg = refreshConfig('refresh.json', db, { concurrency: 8, retries: 0 });
    // 24 questions x 3 pairs x 1 turn x 2 orders
    await stopsAndRecovers(db, ['refresh', '--config', cfg], 144, 600 * 1024);
  });

  it('arena checkpoints run keeps the paid replies in the recovery file; the next run stores them', async () => {
    const db = await seeded('checkpoints.db');
    server = await startOpenAIServer({ latencyMs: 5, verdict: 'longer' });
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

  it('arena refresh in batch mode keeps the downloaded verdicts in the recovery file; the next refresh stores them', async () => {
    const db = await seeded('batch.db');
    server = await startOpenAIServer({
      latencyMs: 0,
      verdict: 'longer',
      batch: {},
    });
    const log = () => server!.log;
    const cfg = refreshConfig('batch.json', db, { batch: true, price: { input: 10, output: 30 } });
    const planned = 144; // 24 questions x 3 pairs x 1 turn x 2 orders
    // with room: the games go up as one batch (the server completes it when it is next polled)
    const first = await runArena(['refresh', '--config', cfg]);
    expect(first.code, first.stderr).toBe(0);
    expect(log().filter((e) => e.path === '/v1/batches' && e.method === 'POST')).toHaveLength(1);

    // no room for the results (about 3.4 KB a game): the next refresh downloads them, and the database refuses them
    disk.fill(200 * 1024);
    const r = await runArena(['refresh', '--config', cfg], { spawn: true });
    expect(r.code, r.stdout + r.stderr).not.toBe(0);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const line = r.stderr.split('\n').find((l) => l.startsWith('arena: '));
    expect(line, r.stderr).toMatch(/run \S+ stopped: the database refused a write: .*full/);
    // every request was answered (paid for) and downloaded; the replies the play loop held when the write was
    // refused are in the recovery file the line names, and the batch stays `submitted` (its output file on the
    // server holds the rest, which the next refresh downloads again: no call is made for them)
    expect(log().filter((e) => e.path === '/v1/batches#line')).toHaveLength(planned);
    const spilled = spilledFiles(db, tmpdir());
    expect(spilled).toHaveLength(1);
    expect(line).toContain(spilled[0]!);
    const inFile = gamesIn(spilled[0]!);
    expect(inFile).toBeGreaterThan(0);
    const storedThen = sqlCount(db, 'select count(*) n from games');
    expect(storedThen + inFile).toBeLessThanOrEqual(planned);
    expect(sqlCount(db, "select count(*) n from batches where status = 'submitted'")).toBe(1);

    // room again: the recovered verdicts are stored first; nothing is submitted or answered again
    disk.unfill();
    const again = await runArena(['refresh', '--config', cfg]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`stored ${inFile} verdict(s) an earlier run paid for but could not store`);
    expect(spilledFiles(db, tmpdir())).toEqual([]);
    expect(sqlCount(db, 'select count(*) n from games')).toBe(planned);
    expect(sqlCount(db, "select count(*) n from games where source = 'batch'")).toBe(planned);
    expect(log().filter((e) => e.path === '/v1/batches' && e.method === 'POST')).toHaveLength(1);
    expect(log().filter((e) => e.path === '/v1/batches#line')).toHaveLength(planned);
    expect(log().filter((e) => e.path === '/v1/chat/completions')).toHaveLength(0);
    expect(sqlCount(db, "select count(*) n from batches where status = 'imported'")).toBe(1);
    // the stopped run is failed with the reason, and its ledger counts its games, the recovered ones included
    const runs = readRuns(db);
    const stopped = runs.filter((x) => x.status === 'failed' && /refused a write/.test(x.config));
    expect(stopped).toHaveLength(1);
    for (const x of runs) expect(ledger(x), `run ${x.id} (${x.status})`).toEqual(ledgerOfGames(db, x.id));
    // the batch's record says what all its games cost: those the stopped run stored, the recovered ones and the rest
    const batchCosts = sqlRows(db, 'select cost from batches').map((b) => Math.round(Number(b.cost) * 1e9));
    const gameCosts = sqlRows(db, "select sum(cost) cost from games where source = 'batch'");
    expect(batchCosts).toEqual([Math.round(Number(gameCosts[0]!.cost) * 1e9)]);
  });
});
