// The body of tests/support/bounded.ts's worker thread: imports a TypeScript module through tsx and posts what its
// named export returns.
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const m = await tsImport(workerData.module, import.meta.url);
parentPort.postMessage(await m[workerData.name](...workerData.args));
