// Soak (issue #12): three `arena run`s on one database against OpenAI-compatible test servers that fail
// 15% of calls with a 500, SIGKILLed at random moments and restarted, for SOAK_SECONDS (default 20 s, so
// the suite stays fast; the README's figures are from SOAK_SECONDS=120); then one final run. At the end
// every planned game is stored once, the calls the servers answered 200 (paid) are at most the games
// stored plus the calls in flight at the kills, no run is left `running`, and PRAGMA integrity_check is ok.
// Two servers send no `usage`: the games their answers stored (its own log) are exactly the games without token
// counts, and every run's ledger (played, tokens), the killed runs' included, equals its stored games.
//
// Accounting, exact rather than by timing: each process slot talks to its own server process, so a
// request's arrival time and slot name the process that sent it (we know when each started and ended);
// the game it paid for is found by its prompt hash, and the process that stored that game by its run's
// owner (host:pid). A paid call is either the one whose game its own process stored, or it was in flight
// when its process was killed (sent, never stored); any other (a game paid twice by live processes) fails.
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRng } from '../../src/core/stats/random.ts';
import { ARENA_BIN, REPO_ROOT, arenaOk, tmpDir } from '../support/cli.ts';
import { promptHash, spawnOpenAIServer, type SpawnedOpenAIServer } from '../support/openai-server.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 20);
/** how late after its kill a killed process's request may arrive at the server and still be its own */
const KILL_GRACE_MS = 250;
const PROCS = 3;
const CONCURRENCY = 4;
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
const servers: SpawnedOpenAIServer[] = [];
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.close()));
});

describe(`soak: ${PROCS} processes x ${SECONDS} s, 15% faults, random SIGKILLs, then a final run`, () => {
  it(
    'stores every planned game once, pays at most the games plus the calls in flight at the kills, and leaves an intact database',
    async () => {
      const db = join(dir, 'soak.db');
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
      const args = (url: string) => [
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
        String(CONCURRENCY),
        '--timeout',
        String(Math.ceil((LATENCY_MS * 4) / 1000)),
        '--backoff',
        '20',
        '--retries',
        '20',
      ];
      /** every process started: slot, pid, when it started and ended, whether it was killed */
      const procs: { slot: number; pid: number; from: number; to: number; killed: boolean }[] = [];
      const now = () => performance.timeOrigin + performance.now();
      const start = (slot: number) => {
        const from = now();
        const child = spawn(process.execPath, [ARENA_BIN, ...args(servers[slot]!.url)], {
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
        return { child, done, kill, err: () => err };
      };

      const random = seededRng(2026);
      const kills: { slot: number; at: number }[] = [];
      const exits: (number | null)[] = [];
      const slots = Array.from({ length: PROCS }, (_, i) => start(i));
      const deadline = Date.now() + SECONDS * 1000;
      const meanGap = Math.max(1000, (SECONDS * 1000) / 10);
      while (Date.now() < deadline) {
        await new Promise((r) =>
          setTimeout(r, Math.min(deadline - Date.now(), 200 + random() * 2 * meanGap)),
        );
        if (Date.now() >= deadline) break;
        const slot = Math.floor(random() * PROCS);
        const s = slots[slot]!;
        if (s.child.exitCode === null) {
          kills.push({ slot, at: now() });
          s.kill();
        }
        exits.push(await s.done);
        slots[slot] = start(slot);
        // a process that finished on its own is restarted as well (it then finds nothing to do)
        for (let i = 0; i < PROCS; i++)
          if (slots[i]!.child.exitCode !== null)
            (exits.push(slots[i]!.child.exitCode), (slots[i] = start(i)));
      }
      for (const s of slots) {
        if (s.child.exitCode === null) {
          kills.push({ slot: slots.indexOf(s), at: now() });
          s.kill();
        }
        exits.push(await s.done);
      }
      const stored = new Database(db, { readonly: true });
      const storedBeforeFinal = (stored.prepare('SELECT count(*) AS n FROM games').get() as { n: number }).n;
      stored.close();

      const final = start(PROCS);
      expect(await final.done, final.err()).toBe(0);

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
        .prepare('SELECT id, status, played, failed, tokens_in, tokens_out, owner FROM runs')
        .all() as {
        id: string;
        status: string;
        played: number;
        failed: number;
        tokens_in: number;
        tokens_out: number;
        owner: string;
      }[];
      const integrity = d.pragma('integrity_check') as { integrity_check: string }[];
      const leases = (d.prepare('SELECT count(*) AS n FROM leases').get() as { n: number }).n;
      d.close();
      const logs = servers.map((s) => s.readLog().filter((e) => e.path === '/v1/chat/completions'));
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
            continue; // the call that stored its game
          }
          if (sender?.killed)
            inFlightAtKills++; // sent, then its process was killed before storing it
          else
            unexplained.push(
              `slot ${slot} request ${e.n} at ${e.at}: sender ${sender?.pid ?? 'unknown'}, stored by ${storer.get(e.hash!) ?? 'nobody'}`,
            );
        }
      });
      const figures = {
        seconds: SECONDS,
        latencyMs: LATENCY_MS,
        planned: PLANNED,
        kills: kills.length,
        processes: procs.length,
        runs: runs.length,
        storedBeforeFinal,
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
      expect(unexplained).toEqual([]);
      expect(paid).toBe(games.length + inFlightAtKills + retriedByItsProcess);
      expect(integrity).toEqual([{ integrity_check: 'ok' }]);
      expect(leases).toBe(0);
      expect(kills.length).toBeGreaterThanOrEqual(3);
      // no run is left `running`: the killed ones were marked interrupted by the runs after them
      expect(runs.filter((r) => r.status === 'running')).toEqual([]);
      expect(runs.filter((r) => r.status === 'interrupted').length).toBeGreaterThanOrEqual(1);
      // every run's ledger, the killed ones' included (derived from their games once found dead), is its games:
      // how many, and their tokens (a reply without usage counts none)
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
    },
    SECONDS * 1000 + 400_000,
  );
});
