/**
 * `node --import tsx bench/llama.ts`: judged games per second of the local llama-cpp judge on one model,
 * same games, two ways:
 *
 *   baseline = 1 sequence, no prefix reuse, one game at a time (every prompt evaluated from scratch)
 *   batched  = N sequences (games decoded together in one batch) with prefix reuse (a freed sequence takes
 *              the waiting game it shares most with, e.g. the same answer shown first, and a longer prefix
 *              cached in another sequence is copied; 4N games in flight, so there is a choice)
 *   ratio    = batched games/s / baseline games/s         goal: >= 3
 *
 *   server   = (--server) the same games through llama-cpp-python's OpenAI-compatible server on the same file and
 *              thread count (LLAMA_CPP_PYTHON or --python, from scripts/test-models.sh), plain chat completions
 *
 * All play the same games through the real engine (runTournament, in-memory SQLite), grammar on, greedy;
 * the bench also checks that they gave the same verdicts. Default model: a tiny random-weight llama
 * written by tests/judges/llama-cpp/gguf-writer.ts and, when present, ../shared/models/llama-2-tiny-random.gguf.
 * With --model (a real GGUF: $REAL_GGUF, or llama-2-70b-chat.Q4_K_M.gguf with --gpu-layers max on a GPU) the
 * games are MT-Bench's own (--mtbench, default $MTBENCH_DIR): its first --questions questions without a
 * reference answer, the answers of its first --models models, prompt set mt-bench. bench/llama-gpu.sh runs it
 * on a GPU.
 *
 * The machine this runs on is shared and noisy (2 cores, often a load of 10+), so the two ways are played
 * alternately for --rounds rounds and both the best (min time) and the median round are reported.
 *
 * Options: --model PATH (repeatable; default: the two tiny models)  --sequences 8  --questions 4  --rounds 3
 *          --models 4 (answering models; MT-Bench's tournament has 6)  --max-tokens 40  --threads (default:
 *          cores - 1)  --gpu-layers auto  --ctx 1024 (the prompts here are ~300-600 tokens; MT-Bench's two-turn
 *          prompts need 2048)  --server  --server-gpu-layers N  --python PATH  --mtbench DIR  --embd 32
 *          --blocks 2 --ff (2 x embd): the generated model's size. A larger one (e.g. --embd 512 --blocks 4)
 *          spends its time in the weights rather than in attention, as a real model does; on one CPU thread
 *          its decoding is still bound by arithmetic (8 sequences in a batch cost 4-6x one), not by reading
 *          the weights as on a GPU, so batching gains little here (see README)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { NEED_REF_CATS } from '../src/core/prompts.ts';
import { runTournament } from '../src/engine/run.ts';
import { importFiles, mtbenchSources } from '../src/importers/import.ts';
import { defaultThreads, llamaCppJudge } from '../src/judges/llama-cpp/provider.ts';
import { createJudge } from '../src/judges/registry.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';
import type { Store } from '../src/storage/store.ts';
import { seed } from '../tests/judges/llama-cpp/fixtures.ts';
import { MTBENCH_MODELS } from '../tests/support/materials.ts';
import { startLlamaCppServer, type LlamaCppServer } from '../tests/support/real-model.ts';

/** the model's name on the server: the judge is openai/<SERVER_ALIAS> */
const SERVER_ALIAS = 'bench-model';
import { writeTinyLlama } from '../tests/judges/llama-cpp/gguf-writer.ts';

const { values } = parseArgs({
  options: {
    model: { type: 'string', multiple: true },
    sequences: { type: 'string', default: '8' },
    questions: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    models: { type: 'string', default: '4' },
    'max-tokens': { type: 'string', default: '40' },
    threads: { type: 'string' },
    'gpu-layers': { type: 'string' },
    ctx: { type: 'string', default: '1024' },
    embd: { type: 'string', default: '32' },
    blocks: { type: 'string', default: '2' },
    ff: { type: 'string' },
    mtbench: { type: 'string', default: process.env.MTBENCH_DIR },
    server: { type: 'boolean', default: false },
    'server-gpu-layers': { type: 'string' },
    python: { type: 'string', default: process.env.LLAMA_CPP_PYTHON },
  },
});
const tmp = mkdtempSync(join(tmpdir(), 'arena-bench-llama-'));
let paths = values.model ?? [];
if (!paths.length) {
  const tiny = join(tmp, 'tiny-random-llama.gguf');
  const embd = Number(values.embd);
  writeTinyLlama(tiny, {
    seed: 7,
    embd,
    blocks: Number(values.blocks),
    ff: values.ff ? Number(values.ff) : 2 * embd,
    heads: Math.max(4, embd / 64),
  });
  paths = [tiny];
  const shared = fileURLToPath(new URL('../../shared/models/llama-2-tiny-random.gguf', import.meta.url));
  if (existsSync(shared) && embd === 32) paths.push(shared);
}
const nSeq = Number(values.sequences);
const threads = values.threads ? Number(values.threads) : defaultThreads();
const gpuLayers =
  values['gpu-layers'] === undefined
    ? undefined
    : /^\d+$/.test(values['gpu-layers'])
      ? Number(values['gpu-layers'])
      : (values['gpu-layers'] as 'auto' | 'max');
const maxTokens = Number(values['max-tokens']);
/** a real model judges MT-Bench's own games (its questions without a reference answer, its models' answers) */
const onMtbench = !!values.model?.length && !!values.mtbench;
const answering = onMtbench
  ? MTBENCH_MODELS.slice(0, Number(values.models))
  : Array.from({ length: Number(values.models) }, (_, i) => `m${i + 1}`);

console.log(
  `machine: ${cpus()[0]?.model ?? '?'}, ${availableParallelism()} cores; threads ${threads}; max tokens ${maxTokens}; ${values.questions} questions x ${answering.length} models, turns 1+2, pairwise-all, both orders`,
);

/** The games' store: MT-Bench's questions and answers for a real model, else the synthetic tournament. */
async function seeded(store: Store): Promise<number[] | undefined> {
  if (!onMtbench) {
    await seed(store, answering, Number(values.questions));
    return undefined;
  }
  const src = mtbenchSources(values.mtbench!);
  await importFiles(store, { questions: src.questions!, answers: src.answers!, prompts: src.prompts! });
  const qs = await store.catalog.questions();
  return qs
    .filter((q) => !NEED_REF_CATS.has(q.category))
    .slice(0, Number(values.questions))
    .map((q) => q.id);
}

/** The in-process judge on `sequences` sequences (with or without prefix reuse), or `server`'s. */
async function play(path: string, sequences: number, reuse: boolean, server?: LlamaCppServer) {
  const local = server
    ? undefined
    : llamaCppJudge({
        modelPath: path,
        threads,
        sequences,
        prefixReuse: reuse,
        contextSize: Number(values.ctx),
        ...(gpuLayers !== undefined ? { gpuLayers } : {}),
      });
  const judge = local ?? (await createJudge(`openai/${SERVER_ALIAS}`, { baseURL: server!.baseUrl }));
  const info = local
    ? await local.load()
    : { chatWrapper: "the GGUF's (llama-cpp-python's Jinja)", contextSize: Number(values.ctx), gpuLayers: 0 };
  const store = openSqliteStore(':memory:');
  try {
    const questionIds = await seeded(store);
    const t0 = performance.now();
    const s = await runTournament({
      store,
      judge,
      mode: 'pairwise-all',
      models: answering,
      turns: [1, 2],
      promptSet: onMtbench ? 'mt-bench' : 'arena',
      ...(questionIds ? { questionIds } : {}),
      settings: { maxTokens },
      concurrency: server ? 2 : sequences === 1 ? 1 : 4 * sequences,
    });
    const secs = (performance.now() - t0) / 1000;
    if (s.failed) throw new Error(`${s.failed} games failed: ${s.errors[0]}`);
    const tokensIn = (await store.games.list({ judge: judge.id })).reduce((n, g) => n + (g.tokensIn ?? 0), 0);
    const games = await store.games.list({ judge: judge.id });
    const verdicts = new Map(
      games.map((g) => [
        `${g.match.questionId}/${g.match.turn}/${g.match.model1}/${g.match.model2}/${g.order}`,
        g.verdict,
      ]),
    );
    const probs = new Map(
      games.map((g) => [
        `${g.match.questionId}/${g.match.turn}/${g.match.model1}/${g.match.model2}/${g.order}`,
        g.verdictProbs,
      ]),
    );
    const stats = local ? { ...local.stats } : undefined;
    return { games: s.played, secs, rate: s.played / secs, tokensIn, stats, verdicts, probs, info };
  } finally {
    await store.close();
    await local?.close();
  }
}

type Result = Awaited<ReturnType<typeof play>>;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const best = (rs: Result[]) => Math.max(...rs.map((r) => r.rate));
for (const path of paths) {
  console.log(`\nmodel: ${path}`);
  // llama-cpp-python's OpenAI-compatible server on the same file and threads, for the same games
  const server =
    values.server && values.python
      ? await startLlamaCppServer(path, {
          python: values.python,
          alias: SERVER_ALIAS,
          threads,
          ctx: Number(values.ctx),
          ...(values['server-gpu-layers'] ? { gpuLayers: Number(values['server-gpu-layers']) } : {}),
        })
      : undefined;
  if (values.server && !server)
    throw new Error('--server needs --python or LLAMA_CPP_PYTHON (scripts/test-models.sh)');
  const base: Result[] = [];
  const fast: Result[] = [];
  const served: Result[] = [];
  try {
    for (let r = 0; r < Number(values.rounds); r++) {
      base.push(await play(path, 1, false));
      fast.push(await play(path, nSeq, true));
      if (server) served.push(await play(path, 1, false, server));
      console.log(
        `  round ${r + 1}: 1 sequence ${base.at(-1)!.rate.toFixed(2)} games/s, ${nSeq} sequences + reuse ${fast.at(-1)!.rate.toFixed(2)} games/s` +
          (server ? `, server ${served.at(-1)!.rate.toFixed(2)} games/s` : ''),
      );
    }
  } finally {
    await server?.close();
  }
  const b = base[0]!;
  const f = fast[0]!;
  console.log(
    `  chat template: ${b.info.chatWrapper}; context ${b.info.contextSize}; GPU layers ${b.info.gpuLayers}`,
  );
  const agree = (x: Result) => [...b.verdicts].filter(([k, v]) => x.verdicts.get(k) === v).length;
  const row = (name: string, rs: Result[]) => {
    const rates = rs.map((r) => r.rate);
    const st = rs[0]!.stats;
    const tps = Math.max(...rs.map((r) => r.tokensIn / r.secs));
    return (
      `  ${name.padEnd(30)} ${String(rs[0]!.games).padStart(4)} games  best ${best(rs).toFixed(2).padStart(6)} games/s  median ${median(rates).toFixed(2).padStart(6)} games/s  ${tps.toFixed(0)} prompt tokens/s` +
      (st
        ? `; prompt tokens evaluated ${st.promptTokens}, reused ${st.reusedTokens} (${st.copiedTokens} copied from another sequence), generated ${st.generatedTokens}; ${st.batches} decode batches, ${(st.batchItems / st.batches).toFixed(2)} sequences each`
        : '')
    );
  };
  console.log(row('1 sequence, no prefix reuse', base));
  console.log(row(`${nSeq} sequences, prefix reuse`, fast));
  if (served.length) console.log(row('llama-cpp-python server', served));
  const med = median(fast.map((r) => r.rate)) / median(base.map((r) => r.rate));
  console.log(
    `  ratio: prefix reuse best ${(best(fast) / best(base)).toFixed(2)}x, median ${med.toFixed(2)}x (goal >= ${onMtbench ? 2 : 3}x); same verdict in ${agree(f)} of ${b.verdicts.size} games`,
  );
  if (served.length) {
    const s = served[0]!;
    const errors = [...s.verdicts.values()].filter((v) => v === 'error').length;
    console.log(
      `  ratio: in-process / server: 1 sequence ${(best(base) / best(served)).toFixed(2)}x, ${nSeq} sequences + reuse ${(best(fast) / best(served)).toFixed(2)}x (goal >= 1x); the server's verdict is the in-process one in ${agree(s)} of ${b.verdicts.size} games (${errors} unparsable: no grammar on the plain path)`,
    );
  }
  // a game whose verdict differs is a near tie that the floating-point order of a different batch shape tipped
  const p = (x?: Record<string, number> | null) =>
    x ? ['A', 'B', 'C'].map((l) => `${l} ${x[l]!.toFixed(4)}`).join(' ') : '?';
  for (const [k] of [...b.verdicts].filter(([k, v]) => f.verdicts.get(k) !== v).slice(0, 5))
    console.log(
      `    differs: ${k}: ${b.verdicts.get(k)} (P ${p(b.probs.get(k))}) vs ${f.verdicts.get(k)} (P ${p(f.probs.get(k))})`,
    );
}
rmSync(tmp, { recursive: true, force: true });
