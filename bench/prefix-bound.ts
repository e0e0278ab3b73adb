/**
 * `node --import tsx bench/prefix-bound.ts [--model GGUF] [--models 6] [--questions 80]`: the most that prefix
 * reuse can save on MT-Bench's shape, whatever the hardware or scheduler (an oracle bound).
 *
 * Every judge prompt of a pairwise-all plan is tokenized with the model's own tokenizer ($REAL_GGUF by default:
 * SmolLM2's) and put in one prefix tree. An oracle that keeps every prefix it ever evaluated evaluates each node of
 * the tree once; no scheduler evaluates fewer prompt tokens. So
 *
 *   bound = prompt tokens of all games / nodes of the prefix tree
 *
 * is the most that reuse can speed up prompt evaluation, even if a reused token cost nothing and decoding were free.
 * Printed for the plans bench/llama.ts measured (3 questions without a reference and 3 models; 2 and MT-Bench's 6)
 * and for MT-Bench's own tournament (6 models, 80 questions, both turns). The chat template's few tokens around the system and user parts
 * are left out: they are the same in every game, so they would raise the bound by a hair.
 *
 * With --measure, the model also evaluates one MT-Bench-sized prompt and decodes --decode tokens on one sequence
 * (--threads, default 1), so the share p of a game's time spent on its prompt is known; then reuse can speed a game up
 * by at most 1 / ((1 - p) + p / bound), even if batching made decoding no cheaper (as on one CPU thread).
 */
import { parseArgs } from 'node:util';
import { NEED_REF_CATS } from '../src/core/prompts.ts';
import { planRun } from '../src/engine/run.ts';
import { importFiles, mtbenchSources } from '../src/importers/import.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';
import { MTBENCH_MODELS } from '../tests/support/materials.ts';

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: process.env.REAL_GGUF },
    mtbench: { type: 'string', default: process.env.MTBENCH_DIR },
    measure: { type: 'boolean', default: false },
    threads: { type: 'string', default: '1' },
    decode: { type: 'string', default: '34' },
  },
});
if (!values.model || !values.mtbench)
  throw new Error('give --model GGUF and --mtbench DIR (or REAL_GGUF, MTBENCH_DIR)');

const { getLlama } = await import('node-llama-cpp');
const llama = await getLlama({ gpu: false });
const model = await llama.loadModel({ modelPath: values.model, vocabOnly: !values.measure });

const store = openSqliteStore(':memory:');
const src = mtbenchSources(values.mtbench);
await importFiles(store, src);
const questions = await store.catalog.questions();

async function bound(label: string, models: string[], questionIds: number[]) {
  const { games } = await planRun({
    store,
    judge: { id: 'bench/prefix', complete: async () => ({ text: '' }) },
    mode: 'pairwise-all',
    models,
    turns: [1, 2],
    promptSet: 'mt-bench',
    questionIds,
  });
  // one node per distinct prefix: a map from (parent node, token) to node
  const children = new Map<string, number>();
  let nodes = 0;
  let total = 0;
  for (const { spec } of games) {
    const tokens = [...model.tokenize(spec.systemPrompt ?? ''), ...model.tokenize(spec.userPrompt)];
    total += tokens.length;
    let at = 0;
    for (const t of tokens) {
      const key = `${at}:${t}`;
      let next = children.get(key);
      if (next === undefined) children.set(key, (next = ++nodes));
      at = next;
    }
  }
  console.log(
    `${label}: ${games.length} games, ${total.toLocaleString('en')} prompt tokens, prefix tree ${nodes.toLocaleString('en')} (${((100 * (total - nodes)) / total).toFixed(1)}% reusable): bound ${(total / nodes).toFixed(2)}x`,
  );
  return { bound: total / nodes, perGame: total / games.length };
}

/** seconds per prompt token (evaluated in one batch) and per decoded token, on one sequence */
async function speeds(promptTokens: number): Promise<{ prompt: number; decode: number }> {
  const context = await model.createContext({ contextSize: 4096, threads: Number(values.threads) });
  const seq = context.getSequence();
  const text = 'The judge reads both answers with care and weighs them. '.repeat(200);
  const tokens = model.tokenize(text).slice(0, Math.round(promptTokens));
  let t0 = performance.now();
  await seq.evaluateWithoutGeneratingNewTokens(tokens);
  const prompt = (performance.now() - t0) / 1000 / tokens.length;
  const n = Number(values.decode);
  let made = 0;
  t0 = performance.now();
  for await (const _ of seq.evaluate([tokens[tokens.length - 1]!])) if (++made >= n) break;
  const decode = (performance.now() - t0) / 1000 / made;
  await context.dispose();
  return { prompt, decode };
}

const noRef = questions.filter((q) => !NEED_REF_CATS.has(q.category)).map((q) => q.id);
await bound(
  'bench/llama.ts plan (3 questions without a reference, 3 models)',
  MTBENCH_MODELS.slice(0, 3),
  noRef.slice(0, 3),
);
await bound(
  'bench/llama.ts --models 6 --questions 2 (MT-Bench six models, 2 questions without a reference)',
  MTBENCH_MODELS.slice(0, 6),
  noRef.slice(0, 2),
);
await bound(
  '3 models, all 80 questions',
  MTBENCH_MODELS.slice(0, 3),
  questions.map((q) => q.id),
);
const full = await bound(
  'MT-Bench tournament (6 models, 80 questions)',
  MTBENCH_MODELS.slice(0, 6),
  questions.map((q) => q.id),
);
// per category: questions with a reference answer (math, reasoning, coding) share it across their games, and short
// answers (extraction) leave the shared part of a prompt larger
for (const category of [...new Set(questions.map((q) => q.category))])
  await bound(
    `  ${category} (6 models, its ${questions.filter((q) => q.category === category).length} questions)`,
    MTBENCH_MODELS.slice(0, 6),
    questions.filter((q) => q.category === category).map((q) => q.id),
  );
if (values.measure) {
  const s = await speeds(full.perGame);
  const promptSecs = s.prompt * full.perGame;
  const decodeSecs = s.decode * Number(values.decode);
  const p = promptSecs / (promptSecs + decodeSecs);
  console.log(
    `one game on ${values.threads} thread(s): prompt ${Math.round(full.perGame)} tokens ${promptSecs.toFixed(2)} s (${(1000 * s.prompt).toFixed(2)} ms each), decode ${values.decode} tokens ${decodeSecs.toFixed(2)} s (${(1000 * s.decode).toFixed(1)} ms each): prompt share p = ${p.toFixed(3)}`,
  );
  console.log(
    `reuse can speed a game up by at most 1 / ((1 - p) + p / ${full.bound.toFixed(2)}) = ${(1 / (1 - p + p / full.bound)).toFixed(2)}x (decoding as dear as alone)`,
  );
}
await model.dispose();
await store.close();
