// The real test model (REAL_GGUF, SmolLM2-135M-Instruct) and LLAMA_CPP_PYTHON (scripts/test-models.sh): without
// them a test file skips, except in CI (CI set), where it fails so a broken install cannot pass as a skip.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { skipWhy } from './materials.ts';
import { freePort } from './port.ts';

export const REAL_GGUF = process.env.REAL_GGUF ?? '';
export const LLAMA_CPP_PYTHON = process.env.LLAMA_CPP_PYTHON ?? '';
const IN_CI = !!process.env.CI && process.env.CI !== 'false';

/** What is missing of the real model and its reference, or undefined. */
function missing(): string | undefined {
  if (!REAL_GGUF || !existsSync(REAL_GGUF))
    return `REAL_GGUF (${REAL_GGUF || 'unset'}) is no file: run \`eval "$(bash scripts/test-models.sh)"\``;
  if (!LLAMA_CPP_PYTHON || !existsSync(LLAMA_CPP_PYTHON))
    return `LLAMA_CPP_PYTHON (${LLAMA_CPP_PYTHON || 'unset'}) is no file: run \`eval "$(bash scripts/test-models.sh)"\``;
  return undefined;
}

/**
 * The skip reason for a file that needs the real model ('' when it may run). In CI nothing is skipped: what is
 * missing is thrown by `assertRealModel`, which such a file calls first.
 */
export const realModelSkip: string = IN_CI ? '' : skipWhy('real model', missing());

/** Throws what is missing (in CI, where the file was not skipped). */
export function assertRealModel(): void {
  const why = missing();
  if (why) throw new Error(`the real-model tests cannot run in CI: ${why}`);
}

const REF = fileURLToPath(new URL('../reference/llama_cpp_ref.py', import.meta.url));

/** tests/reference/llama_cpp_ref.py on LLAMA_CPP_PYTHON, `input` as JSON on stdin; its stdout parsed as JSON. */
export function llamaCppPython<T>(input: unknown, timeoutMs = 300_000): T {
  const r = spawnSync(LLAMA_CPP_PYTHON, [REF], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`llama_cpp_ref.py failed: ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout) as T;
}

export interface LlamaCppServer {
  /** the OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  /** what the server printed so far */
  log(): string;
  close(): Promise<void>;
}

/**
 * llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`, `python` default LLAMA_CPP_PYTHON)
 * on `model`, answering as `alias`, on `threads` threads; resolves once it lists its model.
 */
export async function startLlamaCppServer(
  model: string,
  o: { alias: string; threads: number; ctx: number; python?: string; gpuLayers?: number },
): Promise<LlamaCppServer> {
  const port = await freePort();
  const child = spawn(
    o.python ?? LLAMA_CPP_PYTHON,
    ['-m', 'llama_cpp.server', '--model', model, '--model_alias', o.alias, '--host', '127.0.0.1']
      .concat(['--port', String(port), '--n_ctx', String(o.ctx)])
      .concat(['--n_threads', String(o.threads), '--n_threads_batch', String(o.threads)])
      .concat(o.gpuLayers !== undefined ? ['--n_gpu_layers', String(o.gpuLayers)] : []),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama_cpp.server exited ${child.exitCode}:\n${out}`);
    if (Date.now() - t0 > 180_000) {
      await close();
      throw new Error(`llama_cpp.server did not answer ${baseUrl}/models in 180 s:\n${out}`);
    }
    const ok = await fetch(`${baseUrl}/models`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { baseUrl, log: () => out, close };
    await new Promise((r) => setTimeout(r, 250));
  }
}
