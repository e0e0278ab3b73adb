// The llama-cpp judge's options: the spec's query string, their defaults, and the judge id they make.
import { availableParallelism } from 'node:os';
import { modelIdentity } from '../gguf-identity.ts';
import { JudgeCallError } from '../judge.ts';

/** `llama-cpp/<path.gguf>[?key=value&...]`, parsed. */
export interface LlamaCppOptions {
  modelPath: string;
  /** CPU threads per evaluation (default: cores - 1, at least 1; on 2 cores that is 1, see README) */
  threads?: number;
  /** tokens per sequence (default 4096, capped at the model's training context) */
  contextSize?: number;
  /** layers to offload to the GPU: a number, 'auto' or 'max' (default 'auto'; 0 on a CPU-only build) */
  gpuLayers?: number | 'auto' | 'max';
  /** parallel sequences, i.e. games judged at once (default 4) */
  sequences?: number;
  /** sampling seed, used when temperature > 0 (default 42) */
  seed?: number;
  /** constrain the final verdict with a grammar (default true); false measures the raw behaviour */
  grammar?: boolean;
  /** reuse the evaluated prompt prefix kept in a sequence (default true) */
  prefixReuse?: boolean;
  /** LoRA adapter files */
  lora?: string[];
  /** tokens evaluated per batch (default 512) */
  batchSize?: number;
  /** force 'cpu' (no GPU backend) */
  gpu?: 'auto' | false;
  /** flash attention (default false): its CPU kernel accumulates in half precision (bench/README.md) */
  flashAttention?: boolean;
  /** SoftEnt-Cali (reliability.ts) of each pairwise game against this foundation GGUF (same vocabulary) */
  reliabilityBase?: string;
}

const int = (k: string, v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new JudgeCallError(
      `[judge:llama-cpp] option "${k}": expected a non-negative integer, got "${v}"`,
      false,
    );
  return n;
};
const bool = (k: string, v: string) => {
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new JudgeCallError(`[judge:llama-cpp] option "${k}": expected on or off, got "${v}"`, false);
};

/** Each option of a spec's query string: its names, and what it sets. */
const SPEC_OPTIONS: [string[], (o: LlamaCppOptions, v: string, k: string) => unknown][] = [
  [['threads'], (o, v, k) => (o.threads = Math.max(1, int(k, v)))],
  [['ctx', 'contextSize'], (o, v, k) => (o.contextSize = int(k, v))],
  [['gpuLayers', 'gpu-layers'], (o, v, k) => (o.gpuLayers = v === 'auto' || v === 'max' ? v : int(k, v))],
  [['sequences'], (o, v, k) => (o.sequences = Math.max(1, int(k, v)))],
  [['seed'], (o, v, k) => (o.seed = int(k, v))],
  [['grammar'], (o, v, k) => (o.grammar = bool(k, v))],
  [['prefixReuse', 'reuse'], (o, v, k) => (o.prefixReuse = bool(k, v))],
  [['lora'], (o, v) => (o.lora = [...(o.lora ?? []), v])],
  [['batch', 'batchSize'], (o, v, k) => (o.batchSize = int(k, v))],
  [['gpu'], (o, v, k) => (o.gpu = bool(k, v) ? 'auto' : false)],
  [
    ['reliability'],
    (_o, v) => {
      if (v !== 'softent-cali')
        throw new JudgeCallError(
          `[judge:llama-cpp] option "reliability": expected softent-cali, got "${v}"`,
          false,
        );
    },
  ],
  [['base'], (o, v) => (o.reliabilityBase = v)],
  [['flash', 'flashAttention'], (o, v, k) => (o.flashAttention = bool(k, v))],
];
const SETTERS = new Map(SPEC_OPTIONS.flatMap(([names, set]) => names.map((n) => [n, set] as const)));

/** Options spelled in a judge spec's query string, e.g. `llama-cpp/m.gguf?threads=1&grammar=off`. */
export function parseLlamaSpec(model: string): LlamaCppOptions {
  const q = model.indexOf('?');
  const modelPath = q < 0 ? model : model.slice(0, q);
  const o: LlamaCppOptions = { modelPath };
  if (!modelPath) throw new JudgeCallError('[judge:llama-cpp] expected llama-cpp/<path.gguf>', false);
  const params = new URLSearchParams(q < 0 ? '' : model.slice(q + 1));
  for (const [k, v] of params) {
    const set = SETTERS.get(k);
    if (!set)
      throw new JudgeCallError(
        `[judge:llama-cpp] unknown option "${k}" (known: threads, ctx, gpuLayers, sequences, seed, grammar, reuse, lora, batch, gpu, flash, reliability, base)`,
        false,
      );
    set(o, v, k);
  }
  if (params.has('reliability') !== (o.reliabilityBase !== undefined))
    throw new JudgeCallError(
      '[judge:llama-cpp] reliability=softent-cali and base=<foundation.gguf> go together (SoftEnt-Cali)',
      false,
    );
  return o;
}

/**
 * The judge id: the model's identity (gguf-identity.ts) plus the options that change replies (grammar, seed,
 * flash attention, LoRA adapters); those that change only speed are not part of it.
 */
export function llamaJudgeId(o: LlamaCppOptions): string {
  const p = new URLSearchParams();
  if (o.grammar === false) p.set('grammar', 'off');
  if (o.seed !== undefined && o.seed !== DEFAULT_SEED) p.set('seed', String(o.seed));
  if (o.flashAttention) p.set('flash', 'on');
  for (const l of o.lora ?? []) {
    const a = modelIdentity(l);
    p.append('lora', `${a.name}@${a.hash}`);
  }
  const q = p.toString();
  const m = modelIdentity(o.modelPath);
  return `llama-cpp/${m.name}@${m.hash}${q ? `?${q}` : ''}`;
}

export const DEFAULT_SEED = 42;

/** The default thread count: one core left for Node and everything else (1 on a 2-core machine). */
export function defaultThreads(): number {
  return Math.max(1, Math.min(8, availableParallelism() - 1));
}
