/**
 * `npm run bench:run`: the whole `arena run` process on a full MT-Bench-sized tournament, against a bare
 * `node:http` client process sending the same calls at the same concurrency to the same server, in the same run.
 *
 * 6 models x 80 questions x 2 turns, pairwise-all, both orders = 4,800 games. Per concurrency level:
 *  - a fresh SQLite file with the MT-Bench release imported (not measured);
 *  - the bare client (bench/bare-client.mjs): its own process, the planned prompts from a JSONL file, plain
 *    node:http with keep-alive, no SDK, no retry, no database;
 *  - `node bin/arena.mjs run --db FILE --judge openai/judge --base-url URL ...`: the real command, start
 *    (tsx, imports), plan, play through the OpenAI SDK with retries, store, all in one process.
 * Both run under /usr/bin/time, which reports each whole process's user + sys CPU and peak RSS; wall times
 * are taken around the spawned processes. The test server (tests/support/openai-server.ts) runs in its own
 * process with a fixed latency.
 *
 *   wall/baseline       goal at concurrency 64: <= 1.10
 *   cpu/game            arena's whole-process CPU / games     goal: <= 0.8 ms
 *   cpu/baseline        arena's CPU / the bare client's        (the floor the machine sets right now)
 *   peak RSS            arena's whole process                  goal: <= 200 MiB
 *
 * Then a server that sends no rate-limit headers and answers in 1 s: `arena run --concurrency 32` on 160 games
 * (2 models, turn 1). The server's log gives the time from its first request to its last answer:
 *   no-headers          that time / (1 s x 5 rounds)          goal: <= 1.2
 *
 * Options: --concurrency 64,16,8 (the first is the one held to the goal)  --latency 50 (ms)  --repeats 1
 *          --dir MTBENCH_DIR  --node-args "--cpu-prof --cpu-prof-dir=/tmp/prof" (passed to the arena process)
 *          --no-headers-only (only the no-headers line)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { planRun } from '../src/engine/run.ts';
import { importFiles, mtbenchSources } from '../src/importers/import.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';
import { spawnOpenAIServer } from '../tests/support/openai-server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHARED = fileURLToPath(new URL('../../shared/mt_bench', import.meta.url)); // where .ci/run finds it
const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '64,16,8' },
    latency: { type: 'string', default: '50' },
    repeats: { type: 'string', default: '1' },
    dir: { type: 'string', default: process.env.MTBENCH_DIR ?? (existsSync(SHARED) ? SHARED : '') },
    'node-args': { type: 'string', default: '' },
    'no-headers-only': { type: 'boolean', default: false },
  },
});
const dir = values.dir!;
if (!dir) {
  process.stderr.write(
    'bench:run: set MTBENCH_DIR (or --dir) to an MT-Bench release, e.g. ../shared/mt_bench\n',
  );
  process.exit(1);
}
if (!existsSync('/usr/bin/time')) {
  process.stderr.write(
    "bench:run: needs /usr/bin/time (GNU time) to read a whole process's CPU and peak RSS\n",
  );
  process.exit(1);
}
const latencyMs = Number(values.latency);
const levels = values['no-headers-only'] ? [] : values.concurrency!.split(',').map(Number);
const repeats = Number(values.repeats);
const nodeArgs = values['node-args']!.split(' ').filter(Boolean);
const MODELS = ['gpt-4', 'claude-v1', 'gpt-3.5-turbo', 'vicuna-13b-v1.2', 'alpaca-13b', 'llama-13b'];
const GOAL = { wallToBaseline: 1.1, cpuMsPerGame: 0.8, peakRssMiB: 200, noHeaders: 1.2 };

const work = mkdtempSync(join(tmpdir(), 'bench-run-'));
const server = await spawnOpenAIServer({
  latencyMs,
  verdict: 'longer',
  logFile: join(work, 'server-log.jsonl'),
});

/** CPU seconds (user + sys) a process has used so far, from /proc (Linux; 0 elsewhere). */
function procCpuS(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

interface Measured {
  wallS: number;
  userS: number;
  sysS: number;
  peakRssMiB: number;
  serverCpuS: number;
  stdout: string;
  stderr: string;
}

/** Run a command under /usr/bin/time: wall around the spawn, user/sys CPU and peak RSS of the whole process. */
async function measure(args: string[]): Promise<Measured> {
  const timeFile = join(work, 'time.txt');
  const server0 = procCpuS(server.child.pid!);
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-o', timeFile, '-f', '%U %S %M', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OPENAI_API_KEY: 'sk-bench' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const wallS = (performance.now() - t0) / 1000;
  const serverCpuS = procCpuS(server.child.pid!) - server0;
  if (code !== 0) throw new Error(`bench:run: ${args.join(' ')} exited with ${code}\n${stderr.slice(-2000)}`);
  const [u, s, m] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wallS, userS: u!, sysS: s!, peakRssMiB: m! / 1024, serverCpuS, stdout, stderr };
}

interface Result {
  concurrency: number;
  games: number;
  idealS: number;
  arena: {
    wallS: number;
    cpuMsPerGame: number;
    userMsPerGame: number;
    sysMsPerGame: number;
    peakRssMiB: number;
    serverCpuMsPerGame: number;
  };
  baseline: { wallS: number; cpuMsPerGame: number; peakRssMiB: number; serverCpuMsPerGame: number };
  wallToBaseline: number;
  cpuToBaseline: number;
}

/** A fresh database file with the release imported (not measured), and the games a run of `models` plans. */
async function freshDb(name: string, models: string[], turns?: number[]) {
  const file = join(work, name);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  const store = openSqliteStore(file);
  const src = mtbenchSources(dir);
  await importFiles(store, {
    questions: src.questions!,
    references: src.references!,
    prompts: src.prompts!,
    answers: src.answers!.filter((f) => MODELS.some((m) => f.endsWith(`/${m}.jsonl`))),
  });
  const { games } = await planRun({
    store,
    judge: { id: 'openai/judge', complete: () => Promise.reject(new Error('not called')) },
    mode: 'pairwise-all',
    models,
    promptSet: 'mt-bench',
    ...(turns ? { turns } : {}),
  });
  await store.close();
  return { file, games };
}

async function once(concurrency: number): Promise<Result> {
  const { file, games } = await freshDb(`c${concurrency}.db`, MODELS);
  const promptsFile = join(work, 'prompts.jsonl');
  writeFileSync(
    promptsFile,
    games.map((g) => JSON.stringify({ system: g.spec.systemPrompt, user: g.spec.userPrompt })).join('\n'),
  );
  const n = games.length;

  const base = await measure([
    process.execPath,
    join(ROOT, 'bench/bare-client.mjs'),
    server.url,
    promptsFile,
    String(concurrency),
  ]);
  const arena = await measure([
    process.execPath,
    ...nodeArgs,
    join(ROOT, 'bin/arena.mjs'),
    'run',
    '--db',
    file,
    '--judge',
    'openai/judge',
    '--base-url',
    server.url,
    '--models',
    MODELS.join(','),
    '--prompts',
    'mt-bench',
    '--concurrency',
    String(concurrency),
  ]);
  const check = openSqliteStore(file);
  const stored = (check.sqlite.prepare('SELECT count(*) AS n FROM games').get() as { n: number }).n;
  await check.close();
  if (stored !== n)
    throw new Error(
      `bench:run: ${n} games planned, ${stored} stored\n${arena.stdout}${arena.stderr.slice(-2000)}`,
    );
  const ms = (s: number) => (s * 1000) / n;
  return {
    concurrency,
    games: n,
    idealS: (n * latencyMs) / concurrency / 1000,
    arena: {
      wallS: arena.wallS,
      cpuMsPerGame: ms(arena.userS + arena.sysS),
      userMsPerGame: ms(arena.userS),
      sysMsPerGame: ms(arena.sysS),
      peakRssMiB: arena.peakRssMiB,
      serverCpuMsPerGame: ms(arena.serverCpuS),
    },
    baseline: {
      wallS: base.wallS,
      cpuMsPerGame: ms(base.userS + base.sysS),
      peakRssMiB: base.peakRssMiB,
      serverCpuMsPerGame: ms(base.serverCpuS),
    },
    wallToBaseline: arena.wallS / base.wallS,
    cpuToBaseline: (arena.userS + arena.sysS) / (base.userS + base.sysS),
  };
}

/** `arena run --concurrency 32` against a server with no rate-limit headers answering in 1 s: the rounds it takes. */
async function noHeaders() {
  const NH = { latencyMs: 1000, concurrency: 32 };
  const { file, games } = await freshDb('no-headers.db', MODELS.slice(0, 2), [1]);
  const logFile = join(work, 'no-headers-log.jsonl');
  const srv = await spawnOpenAIServer({ latencyMs: NH.latencyMs, verdict: 'longer', logFile });
  try {
    await measure(
      [process.execPath, join(ROOT, 'bin/arena.mjs'), 'run', '--db', file, '--judge', 'openai/judge']
        .concat(['--base-url', srv.url, '--models', MODELS.slice(0, 2).join(','), '--turn', '1'])
        .concat(['--prompts', 'mt-bench', '--concurrency', String(NH.concurrency)]),
    );
  } finally {
    await srv.close();
  }
  const chats = srv.readLog().filter((e) => e.path === '/v1/chat/completions' && e.answeredAt);
  if (chats.length !== games.length)
    throw new Error(`bench:run: ${games.length} planned, ${chats.length} answered`);
  const spanS = (Math.max(...chats.map((e) => e.answeredAt!)) - Math.min(...chats.map((e) => e.at))) / 1000;
  const rounds = Math.ceil(games.length / NH.concurrency);
  const ratio = spanS / ((rounds * NH.latencyMs) / 1000);
  process.stdout.write(
    `no rate-limit headers: ${games.length} games at concurrency ${NH.concurrency}, server answering in ${NH.latencyMs / 1000} s: first request to last answer ${spanS.toFixed(2)} s = ${ratio.toFixed(3)} x ${rounds} rounds (goal <= ${GOAL.noHeaders}): ${ratio <= GOAL.noHeaders ? 'met' : 'MISSED'}\n`,
  );
  return ratio;
}

const results: Result[] = [];
let noHeadersRatio = Infinity;
try {
  process.stdout.write(
    `bench:run: whole \`arena run\` process, pairwise-all, ${MODELS.length} models, MT-Bench from ${dir}, server latency ${latencyMs} ms (separate process), node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}\n`,
  );
  // warm tsx's compile cache once, as any second run of the command finds it
  await measure([process.execPath, join(ROOT, 'bin/arena.mjs'), 'run', '--help']);
  for (const c of levels)
    for (let i = 0; i < repeats; i++) {
      const r = await once(c);
      results.push(r);
      const a = r.arena;
      const b = r.baseline;
      process.stdout.write(
        `concurrency ${String(c).padStart(3)}: ${r.games} games, ideal ${r.idealS.toFixed(2)} s  |  arena run: wall ${a.wallS.toFixed(2)} s, cpu ${a.cpuMsPerGame.toFixed(3)} ms/game (user ${a.userMsPerGame.toFixed(3)}, sys ${a.sysMsPerGame.toFixed(3)}), peak RSS ${a.peakRssMiB.toFixed(0)} MiB, server cpu ${a.serverCpuMsPerGame.toFixed(3)} ms/game  |  bare client: wall ${b.wallS.toFixed(2)} s, cpu ${b.cpuMsPerGame.toFixed(3)} ms/game, peak RSS ${b.peakRssMiB.toFixed(0)} MiB, server cpu ${b.serverCpuMsPerGame.toFixed(3)} ms/game  |  wall/baseline ${r.wallToBaseline.toFixed(3)}, cpu/baseline ${r.cpuToBaseline.toFixed(2)}\n`,
      );
    }
  noHeadersRatio = await noHeaders();
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
if (!levels.length) process.exit(noHeadersRatio <= GOAL.noHeaders ? 0 : 1);
const head = results.filter((r) => r.concurrency === levels[0]);
const best = <T>(xs: T[], f: (x: T) => number) => Math.min(...xs.map(f));
const ratio = best(head, (r) => r.wallToBaseline);
const cpu = best(head, (r) => r.arena.cpuMsPerGame);
const rss = best(head, (r) => r.arena.peakRssMiB);
const cpuRatio = best(head, (r) => r.cpuToBaseline);
const ok =
  ratio <= GOAL.wallToBaseline &&
  cpu <= GOAL.cpuMsPerGame &&
  rss <= GOAL.peakRssMiB &&
  noHeadersRatio <= GOAL.noHeaders;
process.stdout.write(
  `load average now ${loadavg()[0]!.toFixed(1)} (other processes share these cores: compare wall/baseline, which both pay)\n`,
);
process.stdout.write(
  `goal at concurrency ${levels[0]} (best of ${head.length}): wall/baseline <= ${GOAL.wallToBaseline} (${ratio.toFixed(3)}), cpu <= ${GOAL.cpuMsPerGame} ms/game (${cpu.toFixed(3)}; ${cpuRatio.toFixed(2)}x the bare client's), peak RSS <= ${GOAL.peakRssMiB} MiB (${rss.toFixed(0)}), no-headers <= ${GOAL.noHeaders} (${noHeadersRatio.toFixed(3)}): ${ok ? 'met' : 'MISSED'}\n`,
);
process.stdout.write(`${JSON.stringify({ latencyMs, results })}\n`);
