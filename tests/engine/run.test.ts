// `arena run` end to end (a child process where the process is under test, else runCli) against the test server
// injecting 429s, 500s and hangs; its judge prefers the longer answer, so verdicts check against the answer files.
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { planRun } from '../../src/engine/run.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { arenaOk, REPO_ROOT, runArena, spawnArena, tmpDir, type RunResult } from '../support/cli.ts';
import {
  promptHash,
  startOpenAIServer,
  type OpenAIServerOptions,
  type RequestLogEntry,
  type OpenAIServer,
} from '../support/openai-server.ts';
import { until } from '../support/until.ts';
import { sqlCount, sqlRows } from '../support/stored-game.ts';

const JUDGE = 'openai/judge';
const dir = tmpDir('arena-run-test-');

/** The project's own question set (questions/): 3 contestants, a 4th model as the baseline, 6 questions. */
interface Dataset {
  /** the import commands (without --db) that fill a database */
  imports: string[][];
  /** the questions played (a small mix of categories, written here and passed as --questions) */
  questionsFile: string;
  models: string[];
  baseline: string;
  /** model -> question id -> answer turns, read straight from the answer files */
  answers: Map<string, Map<number, string[]>>;
}

function readJsonl(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function dataset(): Dataset {
  const own = join(REPO_ROOT, 'questions');
  const answerFiles = readdirSync(join(own, 'answers'))
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(own, 'answers', f));
  const answers = new Map<string, Map<number, string[]>>();
  for (const f of answerFiles) {
    const per = new Map<number, string[]>();
    for (const a of readJsonl(f))
      per.set(Number(a.question_id), (a.choices as { turns: string[] }[])[0]!.turns);
    answers.set(
      f
        .split('/')
        .pop()!
        .replace(/\.jsonl$/, ''),
      per,
    );
  }
  // round-robin over categories, so that reference-based and multi-turn prompts are all exercised
  const byCat = new Map<string, Record<string, unknown>[]>();
  for (const q of readJsonl(join(own, 'arena.jsonl')))
    if ((q.turns as unknown[]).length === 2)
      byCat.set(String(q.category), [...(byCat.get(String(q.category)) ?? []), q]);
  const picked: Record<string, unknown>[] = [];
  for (let k = 0; picked.length < 6 && k < 10; k++)
    for (const qs of byCat.values()) if (qs[k] && picked.length < 6) picked.push(qs[k]!);
  const questionsFile = join(dir, 'questions.jsonl');
  writeFileSync(questionsFile, picked.map((q) => JSON.stringify(q)).join('\n') + '\n');
  const models = [...answers.keys()];
  if (models.length < 4) throw new Error(`questions/answers/ has ${models.length} models; this test needs 4`);
  return {
    imports: [
      ['import', 'questions', join(own, 'arena.jsonl')],
      ['import', 'answers', ...answerFiles],
      ['import', 'prompts', join(own, 'judge_prompts.jsonl')],
    ],
    questionsFile,
    models: models.slice(0, 3),
    baseline: models[3]!,
    answers,
  };
}

const DATA = dataset();

// ---- helpers ------------------------------------------------------------------------------------

let baseDb = '';
let servers: OpenAIServer[] = [];
let children: ChildProcess[] = [];
let nDb = 0;

afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children = [];
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

function freshDb(): string {
  const f = join(dir, `run-${++nDb}.db`);
  copyFileSync(baseDb, f);
  return f;
}

async function server(o: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const s = await startOpenAIServer({
    verdict: 'longer',
    ...o,
  });
  servers.push(s);
  return s;
}

/** `arena run ...` against the test server; `over` replaces or adds flags (citty joins a repeated flag's values) */
function runArgs(db: string, url: string, over: Record<string, string> = {}): string[] {
  const flags: Record<string, string> = {
    judge: JUDGE,
    'base-url': url,
    models: DATA.models.join(','),
    mode: 'pairwise-all',
    questions: DATA.questionsFile,
    db,
    concurrency: '4',
    // a judge call's limit: generous where no test hangs a call (a loaded machine delays answers)
    timeout: '30',
    backoff: '20',
    ...over,
  };
  return ['run', ...Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v])];
}

/** `arena ...args` in a child process we can signal */
function startArena(args: string[]): { child: ChildProcess; done: Promise<RunResult> } {
  const p = spawnArena(args);
  children.push(p.child);
  return p;
}

// A run creates the file before its schema: until the games table exists, it has stored no game.
const gameCount = (db: string) =>
  existsSync(db) && sqlRows(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'").length
    ? sqlCount(db, 'SELECT count(*) AS n FROM games')
    : 0;
const chats = (log: RequestLogEntry[]) => log.filter((e) => e.path === '/v1/chat/completions');

/** The planned games (ids and prompt hashes) as the CLI plans them, computed in-process from the same database. */
async function planned(db: string, mode: 'pairwise-all' | 'pairwise-baseline' | 'single' = 'pairwise-all') {
  const store = openSqliteStore(db);
  try {
    const qids = readJsonl(DATA.questionsFile).map((q) => Number(q.question_id));
    const { games } = await planRun({
      store,
      judge: { id: JUDGE, complete: () => Promise.reject(new Error('not called')) },
      mode,
      models: DATA.models,
      baseline: DATA.baseline,
      questionIds: qids,
      turns: [1, 2],
    });
    return games.map((g) => ({ id: g.id, hash: promptHash(g.spec.systemPrompt, g.spec.userPrompt) }));
  } finally {
    await store.close();
  }
}

interface GameRow {
  id: string;
  run_id: string;
  question_id: number;
  turn: number;
  model_1: string;
  model_2: string | null;
  order: string;
  system_prompt: string;
  user_prompt: string;
  reply: string;
  verdict: string;
}

/** What the fake judge's `longer` policy must have decided, from the answer files alone. */
function expectedVerdict(g: GameRow): string {
  const len = (m: string) =>
    DATA.answers
      .get(m)!
      .get(g.question_id)!
      .slice(0, g.turn)
      .reduce((n, t) => n + t.length, 0);
  const a = len(g.model_1);
  const b = len(g.model_2!);
  return a === b ? 'tie' : a > b ? 'model_1' : 'model_2';
}

/** One stored game per match slot, ids unique, and exactly the planned ones. */
function expectExactlyPlanned(db: string, plan: { id: string }[]) {
  const rows = sqlRows<GameRow>(db, 'SELECT * FROM games');
  expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  expect(
    new Set(rows.map((r) => `${r.question_id}|${r.turn}|${r.model_1}|${r.model_2}|${r.order}`)).size,
  ).toBe(rows.length);
  expect(rows.map((r) => r.id).sort()).toEqual(plan.map((p) => p.id).sort());
  return rows;
}

// ---- tests --------------------------------------------------------------------------------------

// generous limits: each test starts the CLI two or three times on a small, shared machine
describe('arena run end to end (questions/arena.jsonl, 3 models, 6 questions)', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    baseDb = join(dir, 'base.db');
    for (const args of DATA.imports) await arenaOk([...args, '--db', baseDb]);
  }, 180_000);

  it('plays every planned game through 429s (Retry-After), 500s and hangs; failed calls are attempts, never verdicts', async () => {
    const db = freshDb();
    const plan = await planned(db);
    const srv = await server({
      latencyMs: 20,
      seed: 7,
      faults: [
        { status: 429, retryAfter: 1, limit: 3 },
        { status: 'hang', limit: 2 },
        { status: 500, probability: 0.15 },
      ],
    });
    // a child process: its 1 s judge timeouts are measured on its own event loop, not the test worker's
    const r = await runArena(runArgs(db, srv.url, { timeout: '1' }), { timeoutMs: 120_000, spawn: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `${plan.length} games planned, 0 already stored: ${plan.length} judge calls to make`,
    );
    expect(r.stderr).toMatch(/retry 1 in 1\.0 s: \[judge:openai\] HTTP 429/);
    expect(r.stderr).toMatch(/timed out after 1000 ms/);

    const log = chats(srv.log);
    const failedCalls = log.filter((e) => e.status !== 200);
    expect(failedCalls.filter((e) => e.status === 429)).toHaveLength(3);
    expect(failedCalls.filter((e) => e.status === 'hang')).toHaveLength(2);
    expect(failedCalls.filter((e) => e.status === 500).length).toBeGreaterThan(0);
    // every game answered exactly once with a 200, and nothing else stored
    expect(log.filter((e) => e.status === 200)).toHaveLength(plan.length);
    const rows = expectExactlyPlanned(db, plan);
    const answered = new Set(log.filter((e) => e.status === 200).map((e) => e.hash));
    for (const g of rows) {
      expect(answered.has(promptHash(g.system_prompt, g.user_prompt))).toBe(true);
      expect(g.reply).toMatch(/\[\[[ABC]\]\]$/);
      expect(g.reply).not.toMatch(/injected fault|timed out/);
      expect(g.verdict, `game ${g.id}`).toBe(expectedVerdict(g));
    }
    // each failed call is on record as an attempt, and the run as done
    const attempts = sqlRows<{ game_id: string; error: string }>(db, 'SELECT game_id, error FROM attempts');
    expect(attempts).toHaveLength(failedCalls.length);
    expect(attempts.filter((a) => /HTTP 429/.test(a.error))).toHaveLength(3);
    expect(attempts.filter((a) => /timed out/.test(a.error))).toHaveLength(2);
    // ... each against the game whose prompt failed, as many times as it failed
    const hashOf = new Map(rows.map((g) => [g.id, promptHash(g.system_prompt, g.user_prompt)]));
    const tally = (keys: string[]) =>
      [...keys.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>())].sort();
    expect(tally(attempts.map((a) => hashOf.get(a.game_id) ?? `unknown game ${a.game_id}`))).toEqual(
      tally(failedCalls.map((e) => e.hash!)),
    );
    expect(sqlRows(db, 'SELECT status, planned, played, failed FROM runs')).toEqual([
      { status: 'done', planned: plan.length, played: plan.length, failed: 0 },
    ]);
  });

  it('exits with code 2 when a game keeps failing, stores no verdict for it, and the rerun fills it', async () => {
    const db = freshDb();
    const plan = await planned(db);
    const victim = plan[5]!;
    // fails every attempt of one game for as long as the first run tries (1 + 2 retries), then recovers
    const srv = await server({ faults: [{ status: 500, hashes: [victim.hash], limit: 3 }] });
    const first = await runArena(runArgs(db, srv.url, { retries: '2' }));
    expect(first.code, first.stderr).toBe(2);
    expect(first.stderr).toContain('1 game(s) not played (no verdict stored)');
    expect(first.stdout).toMatch(new RegExp(`${plan.length - 1} played, 1 failed`));
    expect(gameCount(db)).toBe(plan.length - 1);
    expect(sqlRows(db, 'SELECT id FROM games WHERE id = ?', victim.id)).toEqual([]);
    expect(
      sqlRows<{ n: number }>(db, 'SELECT count(*) AS n FROM attempts WHERE game_id = ?', victim.id)[0]!.n,
    ).toBe(3);
    expect(sqlRows(db, 'SELECT status, failed FROM runs')).toEqual([{ status: 'failed', failed: 1 }]);

    const before = chats(srv.log).length;
    const second = await runArena(runArgs(db, srv.url, { retries: '2' }));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `${plan.length} games planned, ${plan.length - 1} already stored: 1 judge calls to make`,
    );
    const again = chats(srv.log).slice(before);
    expect(again.map((e) => [e.hash, e.status])).toEqual([[victim.hash, 200]]);
    expectExactlyPlanned(db, plan);
  });

  it('survives a SIGKILL: the rerun plays only what is missing, and a third run makes no calls', async () => {
    const db = freshDb();
    const plan = await planned(db);
    const srv = await server({ latencyMs: 100 });
    const first = startArena(runArgs(db, srv.url));
    await until(() => gameCount(db) >= 8, 'the first run to store 8 games', 150_000);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const storedByFirst = sqlRows<GameRow>(db, 'SELECT * FROM games');
    expect(storedByFirst.length).toBeGreaterThanOrEqual(8);
    expect(storedByFirst.length).toBeLessThan(plan.length);
    const callsBefore = chats(srv.log).length;

    const second = await runArena(runArgs(db, srv.url));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `${plan.length} games planned, ${storedByFirst.length} already stored: ${plan.length - storedByFirst.length} judge calls to make`,
    );
    expectExactlyPlanned(db, plan);
    // no game the first run stored was asked for again
    const secondCalls = chats(srv.log).slice(callsBefore);
    expect(secondCalls).toHaveLength(plan.length - storedByFirst.length);
    const paidFor = new Set(storedByFirst.map((g) => promptHash(g.system_prompt, g.user_prompt)));
    expect(secondCalls.filter((e) => paidFor.has(e.hash!))).toEqual([]);

    const callsAfter = chats(srv.log).length;
    const third = await runArena(runArgs(db, srv.url));
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain(
      `${plan.length} games planned, ${plan.length} already stored: 0 judge calls to make`,
    );
    expect(chats(srv.log)).toHaveLength(callsAfter);
    expect(gameCount(db)).toBe(plan.length);
    // three process starts and a kill: 7 s on a quiet machine, past the 60 s default on a loaded CI machine
  }, 180_000);

  it('stops on Ctrl-C (SIGINT) with exit code 130 and keeps the games that finished', async () => {
    const db = freshDb();
    const plan = await planned(db);
    const srv = await server({ latencyMs: 250 });
    const run = startArena(runArgs(db, srv.url, { concurrency: '2' }));
    await until(() => gameCount(db) >= 2, 'the run to store 2 games');
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/interrupted/);
    const kept = gameCount(db);
    expect(kept).toBeGreaterThanOrEqual(2);
    expect(kept).toBeLessThan(plan.length);
    expect(sqlRows(db, 'SELECT status FROM runs')).toEqual([{ status: 'interrupted' }]);
    // what finished is real: every kept game got a 200 from the server
    const ok = new Set(
      chats(srv.log)
        .filter((e) => e.status === 200)
        .map((e) => e.hash),
    );
    for (const g of sqlRows<GameRow>(db, 'SELECT * FROM games'))
      expect(ok.has(promptHash(g.system_prompt, g.user_prompt))).toBe(true);
  });

  it('plays --mode pairwise-baseline: every contestant against the baseline', async () => {
    const db = freshDb();
    const plan = await planned(db, 'pairwise-baseline');
    const srv = await server({ faults: [{ status: 500, probability: 0.1 }] });
    const r = await runArena(runArgs(db, srv.url, { mode: 'pairwise-baseline', baseline: DATA.baseline }));
    expect(r.code, r.stderr).toBe(0);
    const rows = expectExactlyPlanned(db, plan);
    expect(rows).toHaveLength(
      DATA.models.filter((m) => m !== DATA.baseline).length * readJsonl(DATA.questionsFile).length * 2 * 2,
    );
    for (const g of rows) {
      expect(g.model_2).toBe(DATA.baseline);
      expect(g.verdict).toBe(expectedVerdict(g));
    }
  });

  it('plays --mode single: one rated game per model, question and turn', async () => {
    const db = freshDb();
    const plan = await planned(db, 'single');
    const srv = await server({});
    const r = await runArena(runArgs(db, srv.url, { mode: 'single' }));
    expect(r.code, r.stderr).toBe(0);
    const rows = expectExactlyPlanned(db, plan);
    expect(rows).toHaveLength(DATA.models.length * readJsonl(DATA.questionsFile).length * 2);
    for (const g of rows) {
      expect(g.model_2).toBeNull();
      expect(g.system_prompt + g.user_prompt).toContain('[[rating]]');
      // the fake judge rates the answer (turn 1) or the whole conversation (turn 2) by its length
      const rating = Number(g.reply.match(/\[\[(\d+)\]\]$/)![1]);
      expect(g.verdict).toBe(String(rating));
      if (g.turn === 1)
        expect(rating).toBe(
          Math.min(10, 1 + Math.floor(DATA.answers.get(g.model_1)!.get(g.question_id)![0]!.length / 200)),
        );
    }
  });
});
