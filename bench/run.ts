/**
 * `npm run bench:run`: how close a full MT-Bench-sized tournament comes to the ideal wall time, and what it
 * costs our process per game.
 *
 * 6 models x 80 questions x 2 turns, pairwise-all, both orders = 4,800 games, played by the engine in-process
 * (runTournament + openai judge + withRetry) against the OpenAI-compatible test server running in its own
 * process with a fixed latency, into a fresh SQLite file per concurrency.
 *
 *   ideal = games x latency / concurrency         (a server that answers after exactly `latency`)
 *   ratio = wall / ideal                          goal at concurrency 64: <= 1.15
 *   cpu/game = process.cpuUsage() (user + sys) around the run only     goal: < 1 ms
 *
 * Options: --concurrency 64,16,8 (the first is the one held to the goal)  --latency 50 (ms)  --dir MTBENCH_DIR
 */
import pLimit from 'p-limit';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { planRun, runTournament } from '../src/engine/run.ts';
import { importFiles, mtbenchSources } from '../src/importers/import.ts';
import { openaiJudge } from '../src/judges/openai.ts';
import { withRetry } from '../src/judges/retry.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';
import { spawnOpenAIServer } from '../tests/support/openai-server.ts';

const SHARED = fileURLToPath(new URL('../../shared/mt_bench', import.meta.url)); // where .ci/run finds it
const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '64,16,8' },
    latency: { type: 'string', default: '50' },
    dir: { type: 'string', default: process.env.MTBENCH_DIR ?? (existsSync(SHARED) ? SHARED : '') },
  },
});
const dir = values.dir!;
if (!dir) {
  process.stderr.write('bench:run: set MTBENCH_DIR (or --dir) to an MT-Bench release, e.g. ../shared/mt_bench\n');
  process.exit(1);
}
const latencyMs = Number(values.latency);
const levels = values.concurrency!.split(',').map(Number);
const MODELS = ['gpt-4', 'claude-v1', 'gpt-3.5-turbo', 'vicuna-13b-v1.2', 'alpaca-13b', 'llama-13b'];
const GOAL = { ratio: 1.15, cpuMsPerGame: 1 };

const work = mkdtempSync(join(tmpdir(), 'bench-run-'));
const server = await spawnOpenAIServer({ latencyMs, verdict: 'longer', logFile: join(work, 'server-log.jsonl') });

/** CPU seconds (user + sys) a process has used so far, from /proc (Linux; 0 elsewhere). */
function procCpuS(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

/**
 * The same requests (the planned games' prompts) sent by a bare node:http client at the same concurrency,
 * with no SDK, no retry wrapper and no database: what this machine and the server allow right now.
 */
async function baseline(prompts: { system: string; user: string }[], concurrency: number): Promise<{ ms: number; cpuMsPerGame: number }> {
  const agent = new Agent({ keepAlive: true });
  const url = new URL(`${server.url}/chat/completions`);
  const one = (p: { system: string; user: string }) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({ model: 'judge', messages: [{ role: 'system', content: p.system }, { role: 'user', content: p.user }], n: 1, temperature: 0, max_tokens: 2048 });
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 && JSON.parse(Buffer.concat(chunks).toString()).choices[0].message.content ? resolve() : reject(new Error(`baseline: HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  const limit = pLimit(concurrency);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(prompts.map((p) => limit(() => one(p))));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  return { ms, cpuMsPerGame: (cpu.user + cpu.system) / 1000 / prompts.length };
}

interface Result {
  concurrency: number;
  games: number;
  wallS: number;
  idealS: number;
  ratio: number;
  planS: number;
  cpuMsPerGame: number;
  userMsPerGame: number;
  sysMsPerGame: number;
  peakRssMiB: number;
  failed: number;
  serverCpuMsPerGame: number;
  baselineS: number;
  baselineCpuMsPerGame: number;
  ratioToBaseline: number;
}

async function once(concurrency: number): Promise<Result> {
  const file = join(work, `c${concurrency}.db`);
  const store = openSqliteStore(file);
  const src = mtbenchSources(dir);
  await importFiles(store, { questions: src.questions!, references: src.references!, prompts: src.prompts!, answers: src.answers!.filter((f) => MODELS.some((m) => f.endsWith(`/${m}.jsonl`))) });
  const judge = withRetry(openaiJudge({ model: 'judge', baseURL: server.url }), { timeoutMs: 30_000, baseDelayMs: 100 });
  const { games } = await planRun({ store, judge, mode: 'pairwise-all', models: MODELS, promptSet: 'mt-bench' });
  const base = await baseline(games.map((g) => ({ system: g.spec.systemPrompt, user: g.spec.userPrompt })), concurrency);
  global.gc?.();
  const server0 = procCpuS(server.child.pid!);
  let planned = 0;
  let tPlan = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const summary = await runTournament({
    store,
    judge,
    mode: 'pairwise-all',
    models: MODELS,
    promptSet: 'mt-bench',
    concurrency,
    onPlan: (p) => {
      planned = p.toPlay;
      tPlan = performance.now();
    },
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const serverCpuS = procCpuS(server.child.pid!) - server0;
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  const n = (store.sqlite.prepare('SELECT count(*) AS n FROM games').get() as { n: number }).n;
  await store.close();
  rmSync(file, { force: true });
  rmSync(`${file}-wal`, { force: true });
  rmSync(`${file}-shm`, { force: true });
  if (n !== planned || summary.played !== planned) throw new Error(`bench:run: ${planned} games planned, ${summary.played} played, ${n} stored (${summary.failed} failed: ${summary.errors[0] ?? ''})`);
  const idealMs = (planned * latencyMs) / concurrency;
  return {
    concurrency,
    games: planned,
    wallS: wallMs / 1000,
    idealS: idealMs / 1000,
    ratio: wallMs / idealMs,
    planS: (tPlan - t0) / 1000,
    cpuMsPerGame: (cpu.user + cpu.system) / 1000 / planned,
    userMsPerGame: cpu.user / 1000 / planned,
    sysMsPerGame: cpu.system / 1000 / planned,
    peakRssMiB,
    failed: summary.failed,
    serverCpuMsPerGame: (serverCpuS * 1000) / planned,
    baselineS: base.ms / 1000,
    baselineCpuMsPerGame: base.cpuMsPerGame,
    ratioToBaseline: wallMs / base.ms,
  };
}

const results: Result[] = [];
try {
  process.stdout.write(`bench:run: pairwise-all, ${MODELS.length} models, MT-Bench from ${dir}, server latency ${latencyMs} ms (separate process), node ${process.version}, ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)}\n`);
  for (const c of levels) {
    const r = await once(c);
    results.push(r);
    process.stdout.write(
      `concurrency ${String(c).padStart(3)}: ${r.games} games  wall ${r.wallS.toFixed(2)} s  ideal ${r.idealS.toFixed(2)} s  ratio ${r.ratio.toFixed(3)}  (plan ${r.planS.toFixed(2)} s)  |  bare-client baseline ${r.baselineS.toFixed(2)} s (${(r.baselineS / r.idealS).toFixed(3)} x ideal, cpu ${r.baselineCpuMsPerGame.toFixed(3)} ms/game), wall/baseline ${r.ratioToBaseline.toFixed(3)}  |  our cpu ${r.cpuMsPerGame.toFixed(3)} ms/game (user ${r.userMsPerGame.toFixed(3)}, sys ${r.sysMsPerGame.toFixed(3)}), server cpu ${r.serverCpuMsPerGame.toFixed(3)} ms/game  |  peak RSS ${r.peakRssMiB.toFixed(0)} MiB\n`,
    );
  }
} finally {
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
const head = results[0]!;
const ok = head.ratio <= GOAL.ratio && head.cpuMsPerGame < GOAL.cpuMsPerGame;
process.stdout.write(`load average now ${loadavg()[0]!.toFixed(1)} (other processes share these cores: compare wall/baseline, which both pay)\n`);
process.stdout.write(`goal at concurrency ${head.concurrency}: ratio <= ${GOAL.ratio} (${head.ratio.toFixed(3)}), cpu < ${GOAL.cpuMsPerGame} ms/game (${head.cpuMsPerGame.toFixed(3)}): ${ok ? 'met' : 'MISSED'}\n`);
process.stdout.write(`${JSON.stringify({ latencyMs, results })}\n`);
