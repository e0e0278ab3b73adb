// `wrangler d1 execute` as `arena publish` runs it (src/entry/wrangler.ts): a local run that failed is run once more
// (it is one transaction, so it changed nothing), a remote one never. The wrangler here is a real script run by node
// that writes down each start and fails the first ones, as miniflare's local D1 did under load ("false == true").
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { publishToD1 } from '../../src/entry/publish.ts';
import { d1Execute } from '../../src/entry/wrangler.ts';
import { tmpDir } from '../support/cli.ts';

/** A wrangler that fails its first `failures` starts with wrangler's message, then succeeds; `starts()` lists them. */
function fakeWrangler(failures: number) {
  const dir = tmpDir('arena-wrangler-');
  const log = join(dir, 'starts.jsonl');
  const bin = join(dir, 'wrangler.mjs');
  writeFileSync(log, '');
  writeFileSync(
    bin,
    `import { appendFileSync, readFileSync } from 'node:fs';
const n = readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').filter(Boolean).length;
appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');
if (n < ${failures}) { console.error('✘ [ERROR] false == true'); process.exit(1); }
console.log('[{"results":[],"success":true}]');
`,
  );
  const starts = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as string[]);
  return { bin, starts };
}

describe('wrangler d1 execute', () => {
  it('runs a local execute that failed once more, with the same arguments, and says so', () => {
    const w = fakeWrangler(1);
    const said: string[] = [];
    const t = { database: 'mt-arena', persistTo: '/tmp/d1', wrangler: w.bin };
    const r = d1Execute<string>(
      t,
      ['--json', '--command', 'SELECT 1'],
      { encoding: 'utf8', stdio: 'pipe' },
      {
        log: (m) => said.push(m),
      },
    );
    expect(r.status).toBe(0);
    const args = [
      'd1',
      'execute',
      'mt-arena',
      '--local',
      '--json',
      '--command',
      'SELECT 1',
      '--persist-to',
      '/tmp/d1',
    ];
    expect(w.starts()).toEqual([args, args]);
    expect(said).toEqual(['wrangler d1 execute failed (exit 1); a local run is one transaction: once more']);
  });

  it('reports a local execute that failed twice, and never runs a remote one again', () => {
    const local = fakeWrangler(2);
    const r = d1Execute<string>({ database: 'd', wrangler: local.bin }, [], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    expect([r.status, local.starts().length]).toEqual([1, 2]);
    expect(r.stderr).toContain('false == true');
    const remote = fakeWrangler(1);
    const said: string[] = [];
    const t = { database: 'd', remote: true, wrangler: remote.bin };
    const rr = d1Execute<string>(
      t,
      [],
      { encoding: 'utf8', stdio: 'pipe' },
      { log: (m) => said.push(m), show: true },
    );
    expect([rr.status, remote.starts()]).toEqual([1, [['d1', 'execute', 'd', '--remote']]]);
    expect(said).toEqual([expect.stringMatching(/^wrangler d1 execute d --remote$/)]);
  });

  it('arena publish (publishToD1) survives one failed local run and fails with the exit status after two', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x TEXT); INSERT INTO t VALUES (1), (2)');
    const once = fakeWrangler(1);
    const said: string[] = [];
    const t = { database: 'mt-arena', wrangler: once.bin, output: 'stderr' as const };
    await expect(publishToD1(db, t, (m) => said.push(m))).resolves.toBe(2); // a DELETE and an INSERT
    expect(once.starts()).toHaveLength(2);
    expect(said[0]).toMatch(/^wrangler d1 execute mt-arena --local --file \S+publish\.sql --yes$/);
    expect(said[1]).toContain('once more');
    const twice = fakeWrangler(2);
    await expect(publishToD1(db, { ...t, wrangler: twice.bin })).rejects.toThrow(
      '[publish] wrangler d1 execute failed (exit 1)',
    );
    db.close();
  });
});
