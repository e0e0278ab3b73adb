#!/usr/bin/env node
// The `arena` command. The sources are TypeScript: `npm install`, `npm start` and `npm test` bundle them into
// dist/ (scripts/build-cli.mjs), which starts without a loader. dist/ is used only while it is fresh
// (bin/dist-fresh.mjs: newer than every file under src/ and than the last `npm install`); otherwise the sources
// run through tsx's loader, so an edit never runs stale code.
import { fileURLToPath } from 'node:url';
import { distFresh } from './dist-fresh.mjs';

if (process.env.ARENA_NO_DIST !== '1' && distFresh(fileURLToPath(new URL('..', import.meta.url)))) {
  await (await import(new URL('../dist/arena.mjs', import.meta.url).href)).runAsProcess();
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await (await import('../src/cli/main.ts')).runAsProcess();
}
