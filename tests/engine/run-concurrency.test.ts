// Several `arena run`s on one database: every game is leased before its call, so three runs started together pay
// for each game once and each run's record counts only its own games. The server's log counts the calls.
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { arenaOk, REPO_ROOT, spawnArena, spawnEveryRun, tmpDir, type RunResult } from '../support/cli.ts';
import {
  startOpenAIServer,
  type OpenAIServerOptions,
  type RequestLogEntry,
  type OpenAIServer,
} from '../support/openai-server.ts';
import { until } from '../support/until.ts';
import { sqlCount, sqlRows } from '../support/stored-game.ts';

// real processes, as before: runs racing on one database or killed, judge calls on tight timeouts, large
// imports; run in the test worker some of these missed their timings
spawnEveryRun();

const dir = tmpDir('arena-concurrency-test-');
const OWN = join(REPO_ROOT, 'questions');
const readJsonl = (f: string) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let baseDb = '';
let questionsFile = '';
let models: string[] = [];
let servers: OpenAIServer[] = [];
let children: ChildProcess[] = [];
let n = 0;

afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  children = [];
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const chats = (log: RequestLogEntry[]) => log.filter((e) => e.path === '/v1/chat/completions');

async function server(o: OpenAIServerOptions): Promise<OpenAIServer> {
  const s = await startOpenAIServer({ verdict: 'longer', ...o });
  servers.push(s);
  return s;
}

function start(
  db: string,
  url: string,
  extra: string[] = [],
): { child: ChildProcess; done: Promise<RunResult> } {
  const args = [
    'run',
    '--judge',
    'openai/judge',
    '--base-url',
    url,
    '--models',
    models.join(','),
    '--questions',
    questionsFile,
    '--db',
    db,
    '--concurrency',
    '4',
    // long enough that a stalled machine never times out a call the server answers (the retry would be a second
    // call for the game, which the exact call counts below would read as paying twice)
    '--timeout',
    '30',
    '--backoff',
    '20',
    ...extra,
  ];
  const p = spawnArena(args);
  children.push(p.child);
  return p;
}

function freshDb(): string {
  const f = join(dir, `db-${++n}.db`);
  copyFileSync(baseDb, f);
  return f;
}

/** 3 models x 10 questions x 2 turns x 2 orders = 120 games */
const PLANNED = 120;

describe('several arena runs on one database', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    baseDb = join(dir, 'base.db');
    const answerFiles = readdirSync(join(OWN, 'answers'))
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => join(OWN, 'answers', f));
    models = answerFiles.slice(0, 3).map((f) =>
      f
        .split('/')
        .pop()!
        .replace(/\.jsonl$/, ''),
    );
    const qs = readJsonl(join(OWN, 'arena.jsonl'))
      .filter((q) => (q.turns as unknown[]).length === 2)
      .slice(0, 10);
    questionsFile = join(dir, 'questions.jsonl');
    writeFileSync(questionsFile, qs.map((q) => JSON.stringify(q)).join('\n') + '\n');
    await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', baseDb]);
    await arenaOk(['import', 'answers', ...answerFiles, '--db', baseDb]);
    await arenaOk(['import', 'prompts', join(OWN, 'judge_prompts.jsonl'), '--db', baseDb]);
  }, 120_000);

  it("three runs started together pay for each game once: judge calls == games stored, and the runs' played add up to it", async () => {
    const db = freshDb();
    const srv = await server({ latencyMs: 30 });
    const runs = [start(db, srv.url), start(db, srv.url), start(db, srv.url)];
    const results = await Promise.all(runs.map((r) => r.done));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const games = sqlCount(db, 'SELECT count(*) AS n FROM games');
    const calls = chats(srv.log);
    expect(games).toBe(PLANNED);
    expect(calls).toHaveLength(PLANNED);
    expect(new Set(calls.map((c) => c.hash)).size).toBe(PLANNED);
    const rows = sqlRows<{ status: string; played: number; tokens_in: number; id: string }>(
      db,
      'SELECT * FROM runs',
    );
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(r.status).toBe('done');
      // each run's played and tokens are exactly those of the games it stored
      const mine = sqlRows<{ n: number; t: number }>(
        db,
        'SELECT count(*) AS n, coalesce(sum(tokens_in), 0) AS t FROM games WHERE run_id = ?',
        r.id,
      )[0]!;
      expect(r.played).toBe(mine.n);
      expect(r.tokens_in).toBe(mine.t);
    }
    expect(rows.reduce((s, r) => s + r.played, 0)).toBe(PLANNED);
    // each process shared the work (none stood by while another played everything)
    expect(rows.filter((r) => r.played > 0).length).toBeGreaterThanOrEqual(2);
    console.log(
      `3 concurrent runs: ${calls.length} judge calls for ${games} games stored; played per run ${rows.map((r) => r.played).join(' + ')}`,
    );
    expect(sqlCount(db, 'SELECT count(*) AS n FROM leases')).toBe(0);
  });

  it('a run records its progress while games land, and a SIGKILLed run is marked interrupted by the next run; the next run takes over its games at once', async () => {
    const db = freshDb();
    const srv = await server({ latencyMs: 150 });
    const first = start(db, srv.url);
    await until(
      () => sqlCount(db, 'SELECT count(*) AS n FROM games') >= 12,
      'the first run to store 12 games',
    );
    // the record shows progress while it runs (batched: at most about a second behind)
    await until(
      () => (sqlRows<{ played: number }>(db, 'SELECT played FROM runs')[0]?.played ?? 0) >= 8,
      'the run record to show 8 played',
    );
    const live = sqlRows<{ status: string; played: number; owner: string; heartbeat_at: number }>(
      db,
      'SELECT * FROM runs',
    )[0]!;
    expect(live.status).toBe('running');
    expect(live.owner).toMatch(new RegExp(`:${first.child.pid}$`));
    first.child.kill('SIGKILL');
    await first.done;
    const stored = sqlCount(db, 'SELECT count(*) AS n FROM games');
    const dead = sqlRows<{ id: string; status: string; played: number }>(db, 'SELECT * FROM runs')[0]!;
    expect(dead.status).toBe('running');
    expect(dead.played).toBeGreaterThanOrEqual(8);
    expect(dead.played).toBeLessThanOrEqual(stored);
    expect(sqlCount(db, 'SELECT count(*) AS n FROM leases')).toBeGreaterThan(0); // its games in flight, still leased

    const callsBefore = chats(srv.log).length;
    const t0 = Date.now();
    const second = await start(db, srv.url).done;
    expect(second.code, second.stderr).toBe(0);
    // its leases were freed at once (the process is gone), not after the 60 s lease
    expect(Date.now() - t0).toBeLessThan(40_000);
    const after = sqlRows<{ id: string; status: string; played: number }>(
      db,
      'SELECT id, status, played FROM runs ORDER BY started_at',
    );
    expect(after.map((r) => r.status)).toEqual(['interrupted', 'done']);
    expect(sqlCount(db, 'SELECT count(*) AS n FROM games')).toBe(PLANNED);
    expect(chats(srv.log).length - callsBefore).toBe(PLANNED - stored);
    expect(after[1]!.played).toBe(PLANNED - stored);
  });
});
