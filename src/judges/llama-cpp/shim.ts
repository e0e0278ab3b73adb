// Every use of node-llama-cpp's private (@internal, untyped) fields, in one file, behind a version guard: a
// release may rename them at any time, so the installed version is checked against the range they were verified
// on, and their shape once the context exists.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BatchItem, LlamaContext, LlamaContextSequence } from 'node-llama-cpp';

/** The node-llama-cpp versions whose internals below were verified (tests/judges/llama-cpp run on them). */
export const SUPPORTED_NODE_LLAMA_CPP = { min: '3.22.0', below: '4.0.0', range: '>=3.22.0 <4.0.0' } as const;

/** The installed node-llama-cpp's version, read from its package.json (which its exports do not expose). */
export function installedNodeLlamaCppVersion(): string {
  const require = createRequire(import.meta.url);
  // the package's entry (dist/index.js); its package.json is the nearest one above that names the package
  let dir = dirname(require.resolve('node-llama-cpp'));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'node-llama-cpp' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`cannot find node-llama-cpp's package.json above ${require.resolve('node-llama-cpp')}`);
    dir = up;
  }
}

function parseVersion(v: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function compare(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Why this node-llama-cpp version cannot be used, or undefined; a pre-release counts as its release. */
export function unsupportedVersion(version: string): string | undefined {
  const v = parseVersion(version);
  const { min, below, range } = SUPPORTED_NODE_LLAMA_CPP;
  if (v && compare(v, parseVersion(min)!) >= 0 && compare(v, parseVersion(below)!) < 0) return undefined;
  return `node-llama-cpp ${version} is installed; this judge supports node-llama-cpp ${range} (it uses internals of LlamaContext that other versions may not have): npm install node-llama-cpp@">=${min} <${below}"`;
}

interface ContextInternals {
  /** the sequence ids with a decode queued for the next batch */
  _queuedDecodeSequenceIds: Set<number>;
  /** the queued decodes, in the order the batch items are built from */
  _queuedDecodes: { tokens: unknown; sequenceId: number }[];
}

interface SequenceInternals {
  /** llama_memory_seq_cp: node-llama-cpp's own copy of another sequence's KV cache (used by its decision contexts) */
  _copyStateFromOtherSequence(other: LlamaContextSequence, upToTokenIndex: number): Promise<boolean>;
}

const internals = (c: LlamaContext) => c as unknown as Partial<ContextInternals>;

/** Checks that a fresh context and sequence have the internals read here (a patched install fails at load). */
export function assertInternals(
  context: LlamaContext,
  sequence: LlamaContextSequence,
  version = installedNodeLlamaCppVersion(),
): void {
  const c = internals(context);
  const missing = [
    ...(c._queuedDecodeSequenceIds instanceof Set ? [] : ['LlamaContext._queuedDecodeSequenceIds']),
    ...(Array.isArray(c._queuedDecodes) ? [] : ['LlamaContext._queuedDecodes']),
    ...(typeof (sequence as unknown as Partial<SequenceInternals>)._copyStateFromOtherSequence === 'function'
      ? []
      : ['LlamaContextSequence._copyStateFromOtherSequence']),
  ];
  if (missing.length)
    throw new Error(
      `node-llama-cpp ${version} lacks ${missing.join(', ')} (supported: ${SUPPORTED_NODE_LLAMA_CPP.range})`,
    );
}

/** Make `target` hold the first `upTo` tokens of `source` by copying its KV cache; false when it did not. */
export async function copySequence(
  target: LlamaContextSequence,
  source: LlamaContextSequence,
  upTo: number,
): Promise<boolean> {
  const copy = (target as unknown as Partial<SequenceInternals>)._copyStateFromOtherSequence;
  if (typeof copy !== 'function') return false;
  return (await copy.call(target, source, upTo)) === true && target.nextTokenIndex === upTo;
}

/** How many sequences have a decode queued for the next batch (undefined: unknown). */
export function queuedDecodeCount(context: LlamaContext | undefined): number | undefined {
  return context ? internals(context)._queuedDecodeSequenceIds?.size : undefined;
}

/**
 * The sequence id of a batch item: node-llama-cpp builds the items from the context's queue in its order,
 * so item i is queue entry i when their tokens are the same array (checked item by item); otherwise `i`.
 */
export function batchItemSequence(context: LlamaContext | undefined, item: BatchItem, i: number): number {
  const queue = context ? internals(context)._queuedDecodes : undefined;
  return queue?.[i]?.tokens === item.tokens ? queue[i]!.sequenceId : i;
}
