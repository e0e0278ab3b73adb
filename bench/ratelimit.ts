/**
 * `npm run bench:ratelimit`: `arena run` against a judge server that enforces an OpenAI-style token limit
 * (tests/support/openai-server.ts `rateLimit`: a request costs its prompt tokens, characters / 4, plus max_tokens,
 * charged on arrival from a bucket refilled continuously; over it, 429 with retry-after-ms; every answer carries
 * x-ratelimit-* headers).
 *
 * 3 models x 80 questions, turn 1, pairwise-all, both orders = 480 games, 200 ms latency per answer. The limit is
 * set so the run's demand is `--over` times the bucket (default 1.3). The floor is the limit's own minimum time,
 * measured in the same run: (tokens charged - the initial bucket) / the refill rate.
 *
 *   429 share       429 answers / requests               goal: <= 0.02
 *   wall/minimum    first request to last answer / floor  goal: <= 1.15 (three endpoints: <= 1.2)
 *   every game played (exit 0, 480 games stored)
 *
 * Options: --endpoints 1 (several: each its own server and limit; the floor is then the combined limits')
 *          --processes 1 (several: that many `arena run`s on one database against one endpoint, started together;
 *            each game must be paid once, goal <= 5% 429s)
 *          --over 1.3  --latency 200 (ms)  --concurrency 64  --dir MTBENCH_DIR
 *          --log FILE (the servers' request logs, one JSON line each: arrival, status, tokens left, the process's
 *            key; each process runs with its own key, sk-bench-1, sk-bench-2, ...)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { planRun } from '../src/engine/run.ts';
import { importFiles, mtbenchSources } from '../src/importers/import.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';
import { promptHash, spawnOpenAIServer } from '../tests/support/openai-server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHARED = fileURLToPath(new URL('../../shared/mt_bench', import.meta.url));
const { values } = parseArgs({
  options: {
    endpoints: { type: 'string', default: '1' },
    processes: { type: 'string', default: '1' },
    over: { type: 'string', default: '1.3' },
    latency: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '64' },
    dir: { type: 'string', default: process.env.MTBENCH_DIR ?? (existsSync(SHARED) ? SHARED : '') },
    log: { type: 'string' },
  },
});
if (!values.dir) {
  process.stderr.write('bench:ratelimit: set MTBENCH_DIR (or --dir) to an MT-Bench release\n');
  process.exit(1);
}
const MODELS = ['gpt-4', 'claude-v1', 'gpt-3.5-turbo'];
const processes = Number(values.processes);
if (processes > 1 && Number(values.endpoints) > 1) {
  process.stderr.write('bench:ratelimit: --processes goes with one endpoint\n');
  process.exit(1);
}
const GOAL = {
  share429: processes > 1 ? 0.05 : 0.02,
  wallToMinimum: Number(values.endpoints) > 1 || processes > 1 ? 1.2 : 1.15,
};
const MAX_TOKENS = 2048;

const work = mkdtempSync(join(tmpdir(), 'bench-ratelimit-'));
const db = join(work, 'arena.db');
const store = openSqliteStore(db);
const src = mtbenchSources(values.dir);
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
  models: MODELS,
  promptSet: 'mt-bench',
  turns: [1],
});
await store.close();
const demand = games.reduce(
  (s, g) => s + Math.ceil((g.spec.systemPrompt.length + g.spec.userPrompt.length) / 4) + MAX_TOKENS,
  0,
);
const n = Number(values.endpoints);
const tpm = Math.round(demand / Number(values.over) / n);
const servers = await Promise.all(
  Array.from({ length: n }, (_, i) =>
    spawnOpenAIServer({
      latencyMs: Number(values.latency),
      verdict: 'longer',
      rateLimit: { tpm },
      logFile: join(work, `server-${i}.jsonl`),
    }),
  ),
);

const t0 = performance.now();
const runOne = (_: unknown, i: number) => {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/arena.mjs'),
      'run',
      '--db',
      db,
      '--judge',
      'openai/judge',
      '--base-url',
      servers.map((s) => s.url).join(','),
      '--models',
      MODELS.join(','),
      '--prompts',
      'mt-bench',
      '--turn',
      '1',
      '--concurrency',
      values.concurrency!,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OPENAI_API_KEY: `sk-bench-${i + 1}` },
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out })),
  );
};
const runs = await Promise.all(Array.from({ length: processes }, runOne));
const code = runs.every((r) => r.code === 0) ? 0 : (runs.find((r) => r.code !== 0)!.code ?? 1);
const out = runs.map((r) => r.out).join('\n');
const wallS = (performance.now() - t0) / 1000;
for (const s of servers) await s.close();

const log = servers.flatMap((s) => s.readLog()).filter((e) => e.path === '/v1/chat/completions');
if (values.log) writeFileSync(values.log, log.map((e) => JSON.stringify(e)).join('\n') + '\n');
const requests = log.length;
const limited = log.filter((e) => e.status === 429).length;
const charged = log.reduce((s, e) => s + (e.charged ?? 0), 0);
const answered = log.filter((e) => e.status === 200);
// each game paid once: a prompt is answered as many times as games have it (two games may share one)
const count = (hashes: string[]) =>
  hashes.reduce((m, h) => m.set(h, (m.get(h) ?? 0) + 1), new Map<string, number>());
const planned = count(games.map((g) => promptHash(g.spec.systemPrompt, g.spec.userPrompt)));
const paid = count(answered.map((e) => e.hash!));
const paidOnce = paid.size === planned.size && [...planned].every(([h, k]) => paid.get(h) === k);
// the whole bucket is there at the start; the rest comes at the refill rate (tpm / 60 per second, per server)
const minimumS = Math.max(0, charged - tpm * n) / ((tpm * n) / 60);
const check = openSqliteStore(db);
const stored = (check.sqlite.prepare('SELECT count(*) AS n FROM games').get() as { n: number }).n;
await check.close();
rmSync(work, { recursive: true, force: true });

// the run's time under the limit: from the first request's arrival to the last answer (the process's start-up,
// import and plan are not the limit's business; the whole process's wall is printed beside it)
const arrivals = log.map((e) => e.at);
const runS = (Math.max(...arrivals) - Math.min(...arrivals) + Number(values.latency)) / 1000;
const share429 = limited / requests;
const wallToMinimum = runS / minimumS;
console.log(
  JSON.stringify(
    {
      games: games.length,
      stored,
      exit: code,
      endpoints: n,
      processes,
      paidOnce,
      tpmEach: tpm,
      requests,
      rateLimited: limited,
      tokensCharged: charged,
      processWallS: +wallS.toFixed(2),
      runS: +runS.toFixed(2),
      minimumS: +minimumS.toFixed(2),
      share429: +share429.toFixed(4),
      wallToMinimum: +wallToMinimum.toFixed(3),
    },
    null,
    2,
  ),
);
const ok =
  code === 0 &&
  stored === games.length &&
  paidOnce &&
  share429 <= GOAL.share429 &&
  wallToMinimum <= GOAL.wallToMinimum;
console.log(
  `every game played: ${stored === games.length && code === 0 ? 'yes' : 'NO'}, each paid once: ${paidOnce ? 'yes' : 'NO'}; 429 share ${(share429 * 100).toFixed(1)}% (goal <= ${GOAL.share429 * 100}%); wall/minimum ${wallToMinimum.toFixed(3)} (goal <= ${GOAL.wallToMinimum})`,
);
if (!ok) {
  console.log(out.slice(-3000));
  process.exitCode = 1;
}
