// The same route tests against the Worker under `wrangler dev`, over a local D1 that the migrations
// built and that `arena publish` filled from the test database. Also: the Worker bundle stays free of
// Node-only code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { buildFixture } from './fixture.ts';
import { describeRoutes } from './routes.ts';
import { localD1, wrangler, wranglerDev } from './support.ts';

describeRoutes('Worker under wrangler dev over local D1', async () => {
  const dir = tmpDir('arena-worker-');
  const { file, store } = await buildFixture(dir);
  await store.close();
  const persist = await localD1(dir);
  const pub = await runArena(['publish', '--db', file, '--persist-to', persist], { timeoutMs: 360_000 });
  expect(pub.code, pub.stderr).toBe(0);
  expect(pub.stdout).toMatch(/published .* to D1 mt-arena \(local\)/);
  const dev = await wranglerDev(persist, { BOOTSTRAP_ROUNDS: '200' });
  return {
    request: (path, init) => fetch(dev.url + path, { ...init, redirect: 'manual' }),
    close: () => dev.stop(),
  };
});

describe('the Worker bundle', () => {
  it('reaches neither better-sqlite3, node-llama-cpp, openai nor the CLI, and generates no code at run time', async () => {
    const out = tmpDir('arena-bundle-');
    await wrangler(['deploy', '--dry-run', '--outdir', out]);
    const map = JSON.parse(readFileSync(join(out, 'worker.js.map'), 'utf8')) as { sources: string[] };
    const sources = map.sources.join('\n');
    expect(sources).toContain('src/entry/worker.ts');
    expect(sources).toContain('src/storage/d1.ts');
    for (const banned of [
      'better-sqlite3',
      'node-llama-cpp',
      'node_modules/openai',
      'src/cli/',
      'src/storage/sqlite.ts',
      'src/judges/',
      'ejs/lib',
    ])
      expect(sources, banned).not.toContain(banned);
    const code = readFileSync(join(out, 'worker.js'), 'utf8');
    expect(code).not.toMatch(/new Function\s*\(/);
  });
});
