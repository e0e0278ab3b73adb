// vitest's setupFiles: a worker's files share one module graph, where a module-level hook would register for the
// first file only, so each file's clean-up is registered here, and what it changed is put back.
import { afterAll } from 'vitest';
import { endOfFile } from './cli.ts';

// @hono/node-server's `serve` puts its own Request and Response on globalThis for the rest of the process; an app's
// in-process responses under them lose the headers its middleware adds. Each file starts with Node's own.
const NODE_GLOBALS = Symbol.for('arena-tests.node-globals');
const g = globalThis as { [NODE_GLOBALS]?: { Request: typeof Request; Response: typeof Response } };
g[NODE_GLOBALS] ??= { Request: globalThis.Request, Response: globalThis.Response };
Object.assign(globalThis, g[NODE_GLOBALS]);

// as long as a test may run: it waits for the in-process runs of a test that timed out
afterAll(endOfFile, 600_000);
