// Pure code that may loop (a solver, a sampler) run in a worker thread, so that a test of it fails at a time limit
// instead of holding its vitest worker at 100% CPU until CI gives up (a synchronous loop never yields to a timeout).
import { Worker } from 'node:worker_threads';

/** `module`'s export `name` called with `args` (structured-clonable) in a worker thread, ended after `seconds`. */
export function inWorker<T>(module: URL, name: string, args: unknown[], seconds: number): Promise<T> {
  const worker = new Worker(new URL('./bounded-worker.mjs', import.meta.url), {
    workerData: { module: module.href, name, args },
  });
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${name} (${module.pathname}) did not return within ${seconds} s`));
      void worker.terminate();
    }, seconds * 1000);
    worker.once('message', (v: T) => {
      clearTimeout(timer);
      resolve(v);
      void worker.terminate();
    });
    worker.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}
