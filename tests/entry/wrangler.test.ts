// `wrangler d1 execute` as `arena publish` runs it: a failed local run (one transaction) is retried once, a remote
// one never. The wrangler here is a script that fails its first starts or hangs after writing, as workerd did.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { publishToD1 } from '../../src/entry/publish.ts';
import { d1Execute } from '../../src/entry/wrangler.ts';
import { tmpDir } from '../support/cli.ts';

/**
 * A wrangler that fails its first `failures` starts with wrangler's message, or with `hang` prints its result and
 * never ends (with a child of its own, as workerd is), then succeeds; `starts()` lists them, `children()` the pids.
 */
function fakeWrangler(failures: number, hang = false) {
  const dir = tmpDir('arena-wrangler-');
  const log = join(dir, 'starts.jsonl');
  const pids = join(dir, 'children');
  const bin = join(dir, 'wrangler.mjs');
  writeFileSync(log, '');
  writeFileSync(pids, '');
  writeFileSync(
    bin,
    `import { appendFileSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const n = readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').filter(Boolean).length;
appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');
if (n < ${failures} && ${hang}) {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  appendFileSync(${JSON.stringify(pids)}, child.pid + '\\n');
  console.log('[{"results":[],"success":true}]');
  setInterval(() => {}, 1000);
} else if (n < ${failures}) { console.error('✘ [ERROR] false == true'); process.exit(1); }
else
console.log('[{"results":[],"success":true}]');
`,
  );
  const starts = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as string[]);
  const children = () => readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
  return { bin, starts, children };
}

/** Whether process `pid` has ended within 5 s (an orphan killed is reaped by init a moment later). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('wrangler d1 execute', () => {
  it('runs a local execute that failed once more, with the same arguments, and says so', async () => {
    const w = fakeWrangler(1);
    const said: string[] = [];
    const t = { database: 'mt-arena', persistTo: '/tmp/d1', wrangler: w.bin };
    const r = await d1Execute(
      t,
      ['--json', '--command', 'SELECT 1'],
      { capture: true },
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

  it('reports a local execute that failed twice, and never runs a remote one again', async () => {
    const local = fakeWrangler(2);
    const r = await d1Execute({ database: 'd', wrangler: local.bin }, [], { capture: true });
    expect([r.status, local.starts().length]).toEqual([1, 2]);
    expect(r.stderr).toContain('false == true');
    const remote = fakeWrangler(1);
    const said: string[] = [];
    const t = { database: 'd', remote: true, wrangler: remote.bin };
    const rr = await d1Execute(t, [], { capture: true }, { log: (m) => said.push(m), show: true });
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

  it('stops a local execute that does not end (with what it started) and runs it once more; a remote one it reports', async () => {
    const w = fakeWrangler(1, true);
    const said: string[] = [];
    const t = { database: 'mt-arena', wrangler: w.bin };
    const r = await d1Execute(
      t,
      ['--command', 'SELECT 1'],
      { capture: true, timeoutMs: 1500 },
      {
        log: (m) => said.push(m),
      },
    );
    expect([r.status, r.timedOut, w.starts().length]).toEqual([0, false, 2]);
    expect(said).toEqual([
      'wrangler d1 execute did not end within 1.5 s (stopped); a local run is one transaction: once more',
    ]);
    // the hung run's own child went with it
    const [child] = w.children();
    expect(child).toBeGreaterThan(0);
    expect(await gone(child!)).toBe(true);
    const remote = fakeWrangler(1, true);
    const rr = await d1Execute({ ...t, remote: true, wrangler: remote.bin }, [], {
      capture: true,
      timeoutMs: 1500,
    });
    expect([rr.status, rr.timedOut, rr.error?.message, remote.starts().length]).toEqual([
      null,
      true,
      'did not end within 1.5 s',
      1,
    ]);
    expect(await gone(remote.children()[0]!)).toBe(true);
  });
});
