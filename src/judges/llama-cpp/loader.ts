// Loading node-llama-cpp and a GGUF model into a context, for the llama-cpp judge and answer generator. The native
// module is imported only here, lazily, after the installed version is checked (shim.ts).
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChatWrapper, Llama, LlamaContext, LlamaContextOptions, LlamaModel } from 'node-llama-cpp';
import { installedNodeLlamaCppVersion, unsupportedVersion } from './shim.ts';

type NodeLlamaCpp = typeof import('node-llama-cpp');

/** Builds the caller's error (each caller names itself: `[judge:...]`, `[generator:...]`); `file`: the file at fault. */
export type Fail = (message: string, cause?: unknown, file?: string) => Error;

/** Throws unless the model file and every LoRA adapter file exist. */
export function checkModelFiles(modelPath: string, lora: readonly string[] | undefined, fail: Fail): void {
  if (!existsSync(modelPath)) throw fail(`no such GGUF file: ${modelPath}`, undefined, modelPath);
  for (const l of lora ?? []) if (!existsSync(l)) throw fail(`no such LoRA adapter file: ${l}`, undefined, l);
}

let versionProblem: string | undefined | null = null;

/** node-llama-cpp, imported once it is known to be installed in a supported version. */
async function importNodeLlamaCpp(fail: Fail): Promise<NodeLlamaCpp> {
  let mod: NodeLlamaCpp;
  try {
    mod = await import('node-llama-cpp');
  } catch (e) {
    throw fail(
      'node-llama-cpp is not installed (it is an optional dependency): npm install node-llama-cpp',
      e,
    );
  }
  try {
    if (versionProblem === null) versionProblem = unsupportedVersion(installedNodeLlamaCppVersion());
  } catch (e) {
    throw fail(`cannot read the installed node-llama-cpp's version: ${(e as Error)?.message ?? e}`, e);
  }
  if (versionProblem) throw fail(versionProblem);
  return mod;
}

export interface LoadModelOptions {
  modelPath: string;
  lora?: readonly string[] | undefined;
  /** false: no GPU backend (CPU only); 'auto' (default): the GPU when there is one */
  gpu?: 'auto' | false | undefined;
  /** layers to offload when there is a GPU (default 'auto'; always 0 without one) */
  gpuLayers?: number | 'auto' | 'max' | undefined;
  /** tokens per sequence asked for; capped at the model's training context */
  contextSize: number;
  /** the context's other options, given its (capped) size */
  context?(contextSize: number): Omit<LlamaContextOptions, 'contextSize' | 'lora'>;
}

/** Model files (path, size, time of change) whose chat template matched none of node-llama-cpp's formats. */
const ownTemplate = new Set<string>();

/**
 * The model's chat wrapper, as node-llama-cpp resolves it: resolving tries each built-in format (seconds of CPU),
 * so a file that matched none before is given its own template at once.
 */
function chatWrapperOf(mod: NodeLlamaCpp, model: LlamaModel, modelPath: string): ChatWrapper {
  const st = statSync(modelPath);
  const key = `${resolve(modelPath)}\0${st.size}\0${st.mtimeMs}`;
  if (ownTemplate.has(key)) return mod.resolveChatWrapper(model, { type: 'jinjaTemplate' });
  const wrapper = mod.resolveChatWrapper(model);
  if (wrapper instanceof mod.JinjaTemplateChatWrapper) ownTemplate.add(key);
  return wrapper;
}

/** The llama.cpp runtime, one per process and kind, never disposed: starting one costs seconds of CPU. */
const runtimes = new Map<'gpu' | 'cpu', Promise<Llama>>();

/** 'cpu' for a CPU-only request, and for 'auto' where node-llama-cpp finds no GPU (the same binary either way) */
async function runtimeKind(mod: NodeLlamaCpp, gpu: 'auto' | false): Promise<'gpu' | 'cpu'> {
  if (gpu === false) return 'cpu';
  return (await mod.getLlamaGpuTypes('supported')).some((t) => t !== false) ? 'gpu' : 'cpu';
}

async function runtime(mod: NodeLlamaCpp, gpu: 'auto' | false): Promise<Llama> {
  const kind = await runtimeKind(mod, gpu);
  let llama = runtimes.get(kind);
  if (!llama) {
    llama = mod.getLlama({
      gpu: kind === 'cpu' ? false : 'auto',
      build: 'never',
      logLevel: mod.LlamaLogLevel.error,
      progressLogs: false,
    });
    runtimes.set(kind, llama);
    // a runtime that failed to start is tried again by the next load
    llama.catch(() => runtimes.delete(kind));
  }
  return llama;
}

/** The process's runtime for `gpu` (see runtime), for code that loads a model of its own; never dispose it. */
export async function llamaRuntime(gpu: 'auto' | false, fail: Fail): Promise<Llama> {
  return runtime(await importNodeLlamaCpp(fail), gpu);
}

/** The runtime (shared: not the caller's to dispose), the model, one context on it, and its chat format. */
export async function loadModel(
  o: LoadModelOptions,
  fail: Fail,
): Promise<{
  mod: NodeLlamaCpp;
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  wrapper: ChatWrapper;
}> {
  const mod = await importNodeLlamaCpp(fail);
  try {
    const llama = await runtime(mod, o.gpu === false ? false : 'auto');
    const model = await llama.loadModel({
      modelPath: o.modelPath,
      gpuLayers: llama.gpu === false ? 0 : (o.gpuLayers ?? 'auto'),
    });
    const contextSize = Math.min(o.contextSize, model.trainContextSize);
    const context = await model.createContext({
      contextSize,
      ...o.context?.(contextSize),
      ...(o.lora?.length ? { lora: { adapters: o.lora.map((filePath) => ({ filePath })) } } : {}),
    });
    return { mod, llama, model, context, wrapper: chatWrapperOf(mod, model, o.modelPath) };
  } catch (e) {
    throw fail(`cannot load ${o.modelPath}: ${(e as Error)?.message ?? e}`, e, o.modelPath);
  }
}
