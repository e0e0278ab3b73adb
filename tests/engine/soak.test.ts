// Soak: three `arena run`s on one database against test servers failing 15% of calls, SIGKILLed at random and
// restarted for SOAK_SECONDS (docs/testing.md's figures: 120); then a refresh under a budget against a usage-less
// server (charged its bound per call: six games, then it stops); then a run on a full disk (a tmpfs: root only,
// skipped elsewhere), whose paid replies the final, wider run stores before the rest; while that run plays, outputs
// that are the database by another name are refused. At the end every game is stored once, the paid calls are the
// games stored plus those in flight at the kills, every run's ledger equals its games, integrity_check is ok.
// Accounting is exact, not by timing: each process slot has its own server, so a request's arrival and slot name
// its sender, its prompt hash the game, and the run's owner (host:pid) the process that stored it.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRng } from '../../src/core/stats/random.ts';
import type { RefreshSummary } from '../../src/ops/refresh/types.ts';
import { spilledFiles } from '../../src/storage/recovery.ts';
import { ARENA_BIN, REPO_ROOT, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import {
  promptHash,
  spawnOpenAIServer,
  type RequestLogEntry,
  type SpawnedOpenAIServer,
} from '../support/openai-server.ts';
import { smallDisk } from '../support/small-disk.ts';
import { sqlCount } from '../support/stored-game.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 20);
/** how late after its kill a killed process's request may arrive at the server and still be its own */
const KILL_GRACE_MS = 250;
const PROCS = 3;
const CONCURRENCY = 4;
/**
 * the final run's calls in flight, above plan / concurrency (576 / 32 = 18): workers that leave once the plan is
 * all leased, as in the collapse, would never play on all of them
 */
const FINAL_CONCURRENCY = 32;
/** the slot whose usage-less server the budget refresh talks to (a killed slot's, done by then) */
const BUDGET_SLOT = 1;
/**
 * the budget refresh's price (USD per 1M tokens): input free, so that a call's bound (what a reply without usage is
 * charged) is its max_tokens at the output price, whatever its prompt; the cap holds BUDGET_GAMES of them and half
 */
const BUDGET_PRICE = { input: 0, output: 10 };
const BUDGET_GAMES = 6;
const MAX_TOKENS = 2048;
const BOUND_USD = (MAX_TOKENS * BUDGET_PRICE.output) / 1e6;
/**
 * at least this many kills of processes that were playing: the kill phase goes on past SOAK_SECONDS until it has
 * them (a loaded machine can take many seconds to start a process), for at most KILL_EXTRA_MS more
 */
const MIN_KILLS = 3;
const KILL_EXTRA_MS = 150_000;
/** the slot whose server the full-disk run talks to (a killed slot's, done by then; its server sends usage) */
const FULL_SLOT = 0;
/** bytes left free on the small disk for the full-disk run: room to start and store a few dozen games */
const FULL_KEEP = 160 * 1024;
/** games the kill phase leaves unplayed for the full-disk run (it needs more than it can store in FULL_KEEP) */
const FULL_LEFT = 150;
const OWN = join(REPO_ROOT, 'questions');
/** the slots whose servers send no `usage`: one of the killed processes' and the final run's */
const NO_USAGE = [1, PROCS];
const ANSWERS = readdirSync(join(OWN, 'answers'))
  .filter((f) => f.endsWith('.jsonl'))
  .sort()
  .map((f) => join(OWN, 'answers', f));
const MODELS = ANSWERS.map((f) =>
  f
    .split('/')
    .pop()!
    .replace(/\.jsonl$/, ''),
);
/** every pair of the 4 models x 24 questions x 2 turns x 2 orders */
const PLANNED = ((MODELS.length * (MODELS.length - 1)) / 2) * 24 * 2 * 2;
// slow enough replies that the plan takes about the soak's length with 3 x 4 calls in flight
const LATENCY_MS = Math.max(100, Math.round((SECONDS * 1000 * PROCS * CONCURRENCY) / (PLANNED * 1.3)));

const dir = tmpDir('arena-soak-');
// 2.2 MB of database when every game is stored; the rest of the 64 MB is the filler's
const disk = smallDisk(dir, '64m');
const db = join(disk.mounted ? disk.dir : dir, 'soak.db');
const servers: SpawnedOpenAIServer[] = [];
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.close()));
  disk.unfill();
  disk.unmount();
});

/** every process started: slot, pid, when it started and ended, whether it was killed */
const procs: { slot: number; pid: number; from: number; to: number; killed: boolean }[] = [];
const kills: { slot: number; at: number }[] = [];
const now = () => performance.timeOrigin + performance.now();
const chatLog = (slot: number) => servers[slot]!.readLog().filter((e) => e.path === '/v1/chat/completions');

function args(url: string, concurrency = CONCURRENCY): string[] {
  return [
    'run',
    '--judge',
    'openai/judge',
    '--base-url',
    url,
    '--models',
    MODELS.join(','),
    '--db',
    db,
    '--concurrency',
    String(concurrency),
    '--timeout',
    String(Math.ceil((LATENCY_MS * 4) / 1000)),
    '--backoff',
    '20',
    '--retries',
    '20',
  ];
}

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

/** exit 1 with one line naming the output as the database (or one of its files), no stack trace */
async function refused(cmd: string[], says: RegExp) {
  const r = await runArena(cmd);
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(says);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/**
 * Outputs that are the database or its write-ahead log by another name: a hard link of the database, a symlink to
 * its -wal, the -wal spelled through another folder. Each is refused (`whileRunning`: while a run plays).
 */
async function refuseOutputs(whileRunning: boolean) {
  const hard = join(dirname(db), 'soak.sql');
  linkSync(db, hard);
  const sym = join(dirname(db), 'votes.jsonl');
  symlinkSync(`${db}-wal`, sym);
  const judge = ['--judge', 'openai/judge'];
  await refused(['publish', '--db', db, '--out', hard], /is the database \(/);
  await refused(['export', 'votes', '--db', db, ...judge, '--out', sym], /is the database's wal file/);
  const wal = join(dirname(db), 'x', '..', `${basename(db)}-wal`);
  await refused(['review', 'export', '--db', db, ...judge, '--out', wal], /is the database's wal file/);
  return { hard, sym, whileRunning };
}

/**
 * One run's calls in flight, from its server's log (arrival to answer): the peak, and the mean while it still had
 * games to start (its first call to its last game's first call), when every worker should be calling.
 */
function inFlight(log: RequestLogEntry[]) {
  const first = new Map<string, number>();
  for (const e of log) if (!first.has(e.hash!)) first.set(e.hash!, e.at);
  const t0 = Math.min(...log.map((e) => e.at));
  const t1 = Math.max(...first.values());
  // a call whose client went away before the answer (a timeout) was in flight at least the latency
  const events = log
    .flatMap((e) => [
      { t: e.at, d: 1 },
      { t: e.answeredAt ?? e.at + LATENCY_MS, d: -1 },
    ])
    .sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let peak = 0;
  let area = 0;
  let last = t0;
  for (const { t, d } of events) {
    area += now * Math.max(0, Math.min(t, t1) - Math.max(last, t0));
    last = t;
    now += d;
    peak = Math.max(peak, now);
  }
  const end = Math.max(...log.map((e) => e.answeredAt ?? e.at + LATENCY_MS));
  return {
    games: first.size,
    calls: log.length,
    peak,
    mean: Math.round((area / (t1 - t0)) * 100) / 100,
    spanMs: Math.round(end - t0),
    idealMs: Math.round((log.length * LATENCY_MS) / FINAL_CONCURRENCY),
  };
}

/** `arena run` as a process of `slot`, against that slot's server */
function start(slot: number, concurrency = CONCURRENCY) {
  const from = now();
  const child = spawn(process.execPath, [ARENA_BIN, ...args(servers[slot]!.url, concurrency)], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  children.add(child);
  const p = { slot, pid: child.pid!, from, to: Infinity, killed: false };
  procs.push(p);
  const done = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => ((p.to = Math.min(p.to, now())), children.delete(child), resolve(code))),
  );
  const kill = () => {
    p.killed = true;
    p.to = now();
    child.kill('SIGKILL');
  };
  // whether it has sent a judge call yet (until then a kill would only test node's start-up)
  const calling = () => chatLog(slot).some((e) => e.at >= from);
  return { child, done, kill, calling, err: () => err, proc: p };
}

/** what the full-disk phase saw (absent when it was skipped) */
let full: { pid: number; paid: number; stored: number; spilled: string[]; line: string } | undefined;
let storedBeforeFull = 0;
/** kills of processes that had sent a judge call (the rest were still starting, or the phase's end) */
let playing = 0;
let storedBeforeFinal = 0;
/** what the budget refresh played and was charged */
let budgetRun: { played: number; cost: number } | undefined;

describe(`soak: ${PROCS} processes x ${SECONDS} s, 15% faults, random SIGKILLs, a full disk, then a final run`, () => {
  beforeAll(async () => {
    await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
    await arenaOk(['import', 'answers', ...ANSWERS, '--db', db]);
    await arenaOk(['import', 'prompts', join(OWN, 'judge_prompts.jsonl'), '--db', db]);
    for (let i = 0; i <= PROCS; i++)
      servers.push(
        await spawnOpenAIServer({
          verdict: 'longer',
          latencyMs: LATENCY_MS,
          seed: 11 + i,
          faults: [{ status: 500, probability: 0.15 }],
          // one server reports no token usage, as some OpenAI-compatible servers do
          ...(NO_USAGE.includes(i) ? { usage: false } : {}),
          logFile: join(dir, `server-${i}.jsonl`),
        }),
      );
  }, 120_000);

  it(
    'kills runs at random moments while they play',
    async () => {
      const random = seededRng(2026);
      const slots = Array.from({ length: PROCS }, (_, i) => start(i));
      const deadline = Date.now() + SECONDS * 1000;
      const last = deadline + KILL_EXTRA_MS;
      const meanGap = Math.max(1000, (SECONDS * 1000) / 10);
      // a quiet machine plays the plan faster than a loaded one: the phase stops early enough to leave the full-disk
      // run games to fill the disk with
      const going = () =>
        (Date.now() < deadline || (playing < MIN_KILLS && Date.now() < last)) &&
        sqlCount(db, 'SELECT count(*) AS n FROM games') < PLANNED - FULL_LEFT;
      while (going()) {
        const wake = Math.min(last, Date.now() + 200 + random() * 2 * meanGap);
        while (Date.now() < wake && going()) await new Promise((r) => setTimeout(r, 100));
        if (!going()) break;
        const slot = Math.floor(random() * PROCS);
        const s = slots[slot]!;
        if (s.child.exitCode === null) {
          // a process still starting (a loaded machine takes seconds) is left to start
          if (!s.calling()) continue;
          playing++;
          kills.push({ slot, at: now() });
          s.kill();
        }
        await s.done;
        slots[slot] = start(slot);
        // a process that finished on its own is restarted as well (it then finds nothing to do)
        for (let i = 0; i < PROCS; i++) if (slots[i]!.child.exitCode !== null) slots[i] = start(i);
      }
      for (const s of slots) {
        if (s.child.exitCode === null) {
          if (s.calling()) playing++;
          kills.push({ slot: slots.indexOf(s), at: now() });
          s.kill();
        }
        await s.done;
      }
      storedBeforeFull = sqlCount(db, 'SELECT count(*) AS n FROM games');
      expect(playing).toBeGreaterThanOrEqual(MIN_KILLS);
    },
    SECONDS * 1000 + KILL_EXTRA_MS + 120_000,
  );

  it('a refresh under a budget against a judge that reports no usage charges each call its bound and stops at the cap', async () => {
    // in this process (a refresh is one more way to play the same plan: the same judge, settings and prompts)
    const cap = BOUND_USD * (BUDGET_GAMES + 0.5);
    const cfg = join(dir, 'budget.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        db,
        questions: [join(OWN, 'arena.jsonl')],
        prompts: [join(OWN, 'judge_prompts.jsonl')],
        answers: ANSWERS,
        models: MODELS,
        judges: [
          {
            id: 'openai/judge',
            baseURL: servers[BUDGET_SLOT]!.url,
            price: BUDGET_PRICE,
            concurrency: CONCURRENCY,
            retries: 20,
            backoffMs: 20,
            timeoutS: Math.ceil((LATENCY_MS * 4) / 1000),
          },
        ],
        settings: { temperature: 0, maxTokens: MAX_TOKENS },
        budget: { maxUsd: cap },
      }),
    );
    const before = sqlCount(db, 'SELECT count(*) AS n FROM games');
    const p = { slot: BUDGET_SLOT, pid: process.pid, from: now(), to: Infinity, killed: false };
    procs.push(p);
    const r = await runArena(['refresh', '--config', cfg, '--json']);
    p.to = now();
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const s = JSON.parse(r.stdout) as RefreshSummary;
    expect(r.code, r.stderr).toBe(4);
    expect(s.status).toBe('budget');
    // every reply came without usage: each game was charged its bound (max_tokens at the output price, the input
    // being free), so the cap, BUDGET_GAMES bounds and half, let exactly BUDGET_GAMES games be played
    expect({ played: s.played, failed: s.failed }).toEqual({ played: BUDGET_GAMES, failed: 0 });
    expect(s.skipped).toBe(PLANNED - before - BUDGET_GAMES);
    expect(s.cost).toBeCloseTo(BUDGET_GAMES * BOUND_USD, 12);
    expect(s.costEstimated).toBeCloseTo(s.cost, 12);
    expect(s.cost).toBeLessThanOrEqual(cap);
    expect(s.line).toMatch(/spent, \$[\d.]+ of it estimated/);
    // the server's own count: it answered exactly those games (200, distinct prompts), the refresh's run stored
    // them, without token counts or a cost of their own
    const paid = new Set(
      chatLog(BUDGET_SLOT)
        .filter((e) => e.at >= p.from && e.at <= p.to && e.status === 200)
        .map((e) => e.hash),
    );
    const d = new Database(db, { readonly: true });
    try {
      const own = d
        .prepare('SELECT system_prompt, user_prompt, tokens_in, cost FROM games WHERE run_id = ?')
        .all(s.runs[0]!.id) as { system_prompt: string; user_prompt: string; tokens_in: null; cost: null }[];
      expect(new Set(own.map((g) => promptHash(g.system_prompt, g.user_prompt)))).toEqual(paid);
      expect(own.every((g) => g.tokens_in === null && g.cost === null)).toBe(true);
      const rec = d.prepare('SELECT summary FROM refreshes WHERE id = ?').get(s.id) as { summary: string };
      expect(JSON.parse(rec.summary)).toMatchObject({ costEstimated: s.costEstimated });
    } finally {
      d.close();
    }
    budgetRun = { played: s.played, cost: s.cost };
  }, 120_000);

  it.skipIf(!disk.mounted)(
    'a full disk (a tmpfs: needs root to mount) stops a run in one line, its paid replies stored or kept for the next run',
    async () => {
      storedBeforeFull = sqlCount(db, 'SELECT count(*) AS n FROM games');
      // enough games left that the run fills the disk before it runs out of them (about 3.4 KB a game)
      expect(PLANNED - storedBeforeFull, 'games left for the full-disk run').toBeGreaterThan(FULL_LEFT / 2);
      // the killed runs leave their write-ahead log behind (up to its 4 MB auto-checkpoint size); when a kill came just
      // after a checkpoint, the next run writes over that file's room and can store every game left without needing a
      // new byte (CI saw it: 72 games stored, no full disk). Emptied first, every write needs room.
      const w = new Database(db);
      try {
        w.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        w.close();
      }
      disk.fill(FULL_KEEP);
      try {
        const p = start(FULL_SLOT);
        const code = await p.done;
        const pid = procs.at(-1)!.pid;
        const err = p.err();
        expect(code, err).not.toBe(0);
        expect(err).not.toMatch(/\n\s+at /);
        const line = err.split('\n').find((l) => l.startsWith('arena: ')) ?? '';
        expect(line, err).toMatch(/^arena: run \S+ stopped: the database refused a write: .*full/);
        const spilled = spilledFiles(db, tmpdir());
        // a recovery file exactly when a paid reply could not be stored, and the line names it
        expect(spilled.length).toBeLessThanOrEqual(1);
        if (spilled.length) expect(line).toContain(spilled[0]!);
        const from = procs.at(-1)!.from;
        // distinct prompts: a call retried after its own timeout is paid twice for one game (counted at the end)
        const paid = new Set(
          chatLog(FULL_SLOT)
            .filter((e) => e.at >= from && e.status === 200)
            .map((e) => e.hash),
        );
        full = {
          pid,
          paid: paid.size,
          stored: sqlCount(db, 'SELECT count(*) AS n FROM games') - storedBeforeFull,
          spilled: spilled.flatMap((f) =>
            readFileSync(f, 'utf8')
              .split('\n')
              .filter((l) => l.startsWith('{"game"'))
              .map((l) => (JSON.parse(l) as { game: { id: string } }).game.id),
          ),
          line,
        };
        // it stopped calling well before the games left ran out, and every paid reply is stored or spilled
        expect(full.paid).toBeLessThan(PLANNED - storedBeforeFull);
        expect(full.stored + full.spilled.length).toBe(full.paid);
      } finally {
        disk.unfill();
      }
    },
    180_000,
  );

  it('a final run stores what the full disk kept; every planned game stored once, each paid once, every ledger its games', async () => {
    storedBeforeFinal = sqlCount(db, 'SELECT count(*) AS n FROM games');
    const final = start(PROCS, FINAL_CONCURRENCY);
    // while it plays (its write-ahead log live), outputs that are the database or that log by another name are refused
    const deadline = Date.now() + 60_000;
    while (
      !(final.calling() && existsSync(`${db}-wal`)) &&
      final.child.exitCode === null &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 20));
    const outputs = await refuseOutputs(final.child.exitCode === null);
    expect(await final.done, final.err()).toBe(0);
    // the links are as they were: nothing was written or renamed over them
    expect(statSync(outputs.hard).ino).toBe(statSync(db).ino);
    expect(lstatSync(outputs.sym).isSymbolicLink()).toBe(true);
    // after the run, the database byte for byte and its games as they were
    const sum = sha(db);
    const stored = sqlCount(db, 'SELECT count(*) AS n FROM games');
    await refused(
      ['publish', '--db', db, '--out', join(dirname(db), 'x', '..', basename(db))],
      /is the database \(/,
    );
    expect(sha(db)).toBe(sum);
    expect(sqlCount(db, 'SELECT count(*) AS n FROM games')).toBe(stored);
    const flight = inFlight(chatLog(PROCS).filter((e) => e.at >= final.proc.from));
    if (full?.spilled.length)
      expect(final.err()).toContain(
        `stored ${full.spilled.length} verdict(s) an earlier run paid for but could not store`,
      );
    expect(spilledFiles(db, tmpdir())).toEqual([]);

    const d = new Database(db, { readonly: true });
    const games = d
      .prepare('SELECT id, run_id, system_prompt, user_prompt, tokens_in, tokens_out FROM games')
      .all() as {
      id: string;
      run_id: string;
      system_prompt: string;
      user_prompt: string;
      tokens_in: number | null;
      tokens_out: number | null;
    }[];
    const runs = d
      .prepare('SELECT id, status, played, failed, tokens_in, tokens_out, owner, config FROM runs')
      .all() as {
      id: string;
      status: string;
      played: number;
      failed: number;
      tokens_in: number;
      tokens_out: number;
      owner: string;
      config: string;
    }[];
    const integrity = d.pragma('integrity_check') as { integrity_check: string }[];
    const leases = (d.prepare('SELECT count(*) AS n FROM leases').get() as { n: number }).n;
    d.close();
    const logs = servers.map((_, slot) => chatLog(slot));
    const paid = logs.reduce((n, l) => n + l.filter((e) => e.status === 200).length, 0);
    const faults = logs.reduce((n, l) => n + l.filter((e) => e.status !== 200).length, 0);
    const pidOfRun = new Map(runs.map((r) => [r.id, Number(r.owner.split(':').pop())]));
    const storer = new Map(
      games.map((g) => [promptHash(g.system_prompt, g.user_prompt), pidOfRun.get(g.run_id)]),
    );
    let inFlightAtKills = 0;
    const storedVia = Array.from({ length: PROCS + 1 }, () => 0);
    // a call its own process retried after timing out (the server answered late, and a provider bills it)
    let retriedByItsProcess = 0;
    const counted = new Set<string>();
    const unexplained: string[] = [];
    logs.forEach((log, slot) => {
      for (const e of log.filter((x) => x.status === 200)) {
        // a request sent just before a SIGKILL can reach the server (another process, its own clock) a few ms after
        // the kill was recorded: it belongs to the killed process (a restarted one needs far longer to send its first)
        const sender =
          procs.find((p) => p.slot === slot && p.from <= e.at && e.at <= p.to) ??
          procs.find((p) => p.slot === slot && p.killed && p.to < e.at && e.at <= p.to + KILL_GRACE_MS);
        if (sender && storer.get(e.hash!) === sender.pid) {
          if (counted.has(e.hash!)) retriedByItsProcess++;
          else (counted.add(e.hash!), storedVia[slot]!++);
          continue; // the call that stored its game (the full-disk run's: stored, or spilled and restored)
        }
        if (sender?.killed)
          inFlightAtKills++; // sent, then its process was killed before storing it
        else
          unexplained.push(
            `slot ${slot} request ${e.n} at ${e.at}: sender ${sender?.pid ?? 'unknown'}, stored by ${storer.get(e.hash!) ?? 'nobody'}`,
          );
      }
    });
    const fullRun = full && runs.find((r) => pidOfRun.get(r.id) === full!.pid);
    const figures = {
      seconds: SECONDS,
      latencyMs: LATENCY_MS,
      planned: PLANNED,
      kills: kills.length,
      processes: procs.length,
      runs: runs.length,
      storedBeforeFull,
      ...(full
        ? { fullDisk: { paid: full.paid, stored: full.stored, spilled: full.spilled.length } }
        : {
            fullDisk: disk.mounted ? 'failed' : 'skipped: no small filesystem (mounting a tmpfs needs root)',
          }),
      storedBeforeFinal,
      final: { ...flight, whileRunning: outputs.whileRunning },
      budget: budgetRun ?? 'failed',
      games: games.length,
      paid,
      faults,
      inFlightAtKills,
      paidTwice: paid - games.length,
      retriedByItsProcess,
      storedVia,
      withoutUsage: games.filter((g) => g.tokens_in == null).length,
      leases,
      integrity: integrity.map((r) => r.integrity_check).join(','),
    };
    console.log(`soak figures: ${JSON.stringify(figures)}`);
    expect(games).toHaveLength(PLANNED);
    expect(new Set(games.map((g) => g.id)).size).toBe(PLANNED);
    // the final run had every worker calling at once (its --concurrency, never more): none left while games remained
    // (its mean in flight, in the figures, measures the machine's load as much as the run: not asserted)
    expect(flight.games, 'games for the final run').toBeGreaterThanOrEqual(2 * FINAL_CONCURRENCY);
    expect(flight.peak).toBe(FINAL_CONCURRENCY);
    expect(unexplained).toEqual([]);
    expect(paid).toBe(games.length + inFlightAtKills + retriedByItsProcess);
    expect(integrity).toEqual([{ integrity_check: 'ok' }]);
    expect(leases).toBe(0);
    // no run is left `running`: the killed ones were marked interrupted by the runs after them
    expect(runs.filter((r) => r.status === 'running')).toEqual([]);
    expect(runs.filter((r) => r.status === 'interrupted').length).toBeGreaterThanOrEqual(1);
    if (full) {
      // the full-disk run is failed with the reason, and holds its paid games: those it stored and the spilled ones
      expect(fullRun, 'the full-disk run').toBeDefined();
      expect(fullRun!.status).toBe('failed');
      expect(JSON.parse(fullRun!.config).stoppedBy).toMatch(/refused a write: .*full/);
      const own = new Set(games.filter((g) => g.run_id === fullRun!.id).map((g) => g.id));
      expect(own.size).toBe(full.paid);
      for (const id of full.spilled) expect(own.has(id), `spilled game ${id}`).toBe(true);
    }
    // every run's ledger, the killed ones' included (derived from their games once found dead), and the full-disk
    // run's (its spilled games counted once stored), is its games: how many, and their tokens (none without usage)
    for (const r of runs) {
      const own = games.filter((g) => g.run_id === r.id);
      const ledger = { played: r.played, tokensIn: r.tokens_in, tokensOut: r.tokens_out };
      expect(ledger, `run ${r.id} (${r.status})`).toEqual({
        played: own.length,
        tokensIn: own.reduce((n, g) => n + (g.tokens_in ?? 0), 0),
        tokensOut: own.reduce((n, g) => n + (g.tokens_out ?? 0), 0),
      });
    }
    // the games without token counts are exactly those the usage-less servers' answers stored (its own log)
    const viaNoUsage = NO_USAGE.reduce((n, slot) => n + storedVia[slot]!, 0);
    expect(viaNoUsage).toBeGreaterThan(0);
    expect(games.filter((g) => g.tokens_in == null || g.tokens_out == null).length).toBe(viaNoUsage);
    expect(games.filter((g) => g.tokens_in != null).length).toBeGreaterThan(0);
    expect(storedVia.reduce((a, b) => a + b, 0)).toBe(PLANNED);
  }, 400_000);
});
