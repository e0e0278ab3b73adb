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
 * Both play the same games through the real engine (runTournament, in-memory SQLite), grammar on, greedy;
 * the bench also checks that both ways gave the same verdicts. Default model: a tiny random-weight llama
 * written by tests/judges/llama-cpp/gguf-writer.ts and, when present, ../shared/models/llama-2-tiny-random.gguf.
 * On a real model pass --model /path/to/llama-2-70b-chat.Q4_K_M.gguf --gpu-layers max (GPU machine).
 *
 * The machine this runs on is shared and noisy (2 cores, often a load of 10+), so the two ways are played
 * alternately for --rounds rounds and both the best (min time) and the median round are reported.
 *
 * Options: --model PATH (repeatable; default: the two tiny models)  --sequences 8  --questions 4  --rounds 3
 *          --models 4 (answering models; MT-Bench's tournament has 6)  --max-tokens 40  --threads (default:
 *          cores - 1)  --gpu-layers auto  --ctx 1024 (the prompts here are ~300-600 tokens)  --embd 32
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
import { runTournament } from '../src/engine/run.ts';
import { defaultThreads, llamaCppJudge } from '../src/judges/llama-cpp/provider.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';
import { seed } from '../tests/judges/llama-cpp/fixtures.ts';
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
const answering = Array.from({ length: Number(values.models) }, (_, i) => `m${i + 1}`);

console.log(
  `machine: ${cpus()[0]?.model ?? '?'}, ${availableParallelism()} cores; threads ${threads}; max tokens ${maxTokens}; ${values.questions} questions x ${answering.length} models, turns 1+2, pairwise-all, both orders`,
);

async function play(path: string, sequences: number, reuse: boolean) {
  const judge = llamaCppJudge({
    modelPath: path,
    threads,
    sequences,
    prefixReuse: reuse,
    contextSize: Number(values.ctx),
    ...(gpuLayers !== undefined ? { gpuLayers } : {}),
  });
  const info = await judge.load();
  const store = openSqliteStore(':memory:');
  try {
    await seed(store, answering, Number(values.questions));
    const t0 = performance.now();
    const s = await runTournament({
      store,
      judge,
      mode: 'pairwise-all',
      models: answering,
      turns: [1, 2],
      promptSet: 'arena',
      settings: { maxTokens },
      concurrency: sequences === 1 ? 1 : 4 * sequences,
    });
    const secs = (performance.now() - t0) / 1000;
    if (s.failed) throw new Error(`${s.failed} games failed: ${s.errors[0]}`);
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
    return { games: s.played, secs, rate: s.played / secs, stats: { ...judge.stats }, verdicts, probs, info };
  } finally {
    await store.close();
    await judge.close();
  }
}

type Result = Awaited<ReturnType<typeof play>>;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const path of paths) {
  console.log(`\nmodel: ${path}`);
  const base: Result[] = [];
  const fast: Result[] = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    base.push(await play(path, 1, false));
    fast.push(await play(path, nSeq, true));
    console.log(
      `  round ${r + 1}: 1 sequence ${base.at(-1)!.rate.toFixed(1)} games/s, ${nSeq} sequences + reuse ${fast.at(-1)!.rate.toFixed(1)} games/s`,
    );
  }
  const b = base[0]!;
  const f = fast[0]!;
  console.log(
    `  chat template: ${b.info.chatWrapper}; context ${b.info.contextSize}; GPU layers ${b.info.gpuLayers}`,
  );
  let same = 0;
  const differ: string[] = [];
  for (const [k, v] of b.verdicts)
    if (f.verdicts.get(k) === v) same++;
    else differ.push(k);
  const row = (name: string, rs: Result[]) => {
    const rates = rs.map((r) => r.rate);
    const st = rs[0]!.stats;
    return `  ${name.padEnd(30)} ${String(rs[0]!.games).padStart(4)} games  best ${Math.max(...rates)
      .toFixed(1)
      .padStart(
        6,
      )} games/s  median ${median(rates).toFixed(1).padStart(6)} games/s  prompt tokens evaluated ${st.promptTokens}, reused ${st.reusedTokens} (${st.copiedTokens} copied from another sequence), generated ${st.generatedTokens}; ${st.batches} decode batches, ${(st.batchItems / st.batches).toFixed(2)} sequences each`;
  };
  console.log(row('1 sequence, no prefix reuse', base));
  console.log(row(`${nSeq} sequences, prefix reuse`, fast));
  const best = Math.max(...fast.map((r) => r.rate)) / Math.max(...base.map((r) => r.rate));
  const med = median(fast.map((r) => r.rate)) / median(base.map((r) => r.rate));
  console.log(
    `  ratio: best ${best.toFixed(2)}x, median ${med.toFixed(2)}x (goal >= 3x); same verdict in ${same} of ${b.verdicts.size} games`,
  );
  // a game whose verdict differs is a near tie that the floating-point order of a different batch shape tipped
  const p = (x?: Record<string, number> | null) =>
    x ? ['A', 'B', 'C'].map((l) => `${l} ${x[l]!.toFixed(4)}`).join(' ') : '?';
  for (const k of differ.slice(0, 5))
    console.log(
      `    differs: ${k}: ${b.verdicts.get(k)} (P ${p(b.probs.get(k))}) vs ${f.verdicts.get(k)} (P ${p(f.probs.get(k))})`,
    );
}
rmSync(tmp, { recursive: true, force: true });
