// `publish.command`: a hanging command is stopped at its timeout with its process group, SIGTERM to the refresh
// stops both; the lock is given back, one failure line, the copy records the refresh's real status.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArena, spawnArena, tmpDir } from '../support/cli.ts';
import { until } from '../support/until.ts';
import { HAVE_MTBENCH, refreshes, writeConfig } from './helpers.ts';

const MODELS = ['alpaca-13b', 'claude-v1'];

/** A refresh on the mock judge (no server) that publishes a copy, then runs `command`. */
function config(dir: string, command: string[], more: Record<string, unknown> = {}) {
  return writeConfig(dir, {
    url: 'http://127.0.0.1:9/v1',
    models: MODELS,
    judge: { id: 'mock/longer' },
    extra: { publish: { sqlite: 'site.db', command, ...more } },
  });
}

/** The command: a shell that starts a sleep in its process group, writes its pid, and waits on it. */
const HANG = ['sh', '-c', 'sleep 1000 & echo $! > sleep.pid; wait'];

/** A process that runs (a zombie, ended and not yet reaped by its new parent, does not). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** The source's and the published copy's record of the one refresh: the same status. */
function statuses(dir: string) {
  return [refreshes(join(dir, 'arena.db')), refreshes(join(dir, 'site.db'))].map((rs) =>
    rs.map((r) => r.status),
  );
}

const oneLine = (stderr: string) => {
  const lines = stderr.split('\n').filter((l) => l.startsWith('arena: '));
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m); // no stack trace
  return lines[0]!;
};

describe.skipIf(!HAVE_MTBENCH)('arena refresh: publish.command', { timeout: 120_000 }, () => {
  it('a command that hangs is stopped at publish.commandTimeoutS, with its process group; one line; the copy says failed', async () => {
    const dir = tmpDir('arena-publish-cmd-');
    const t0 = Date.now();
    const done = await runArena(['refresh', '--config', config(dir, HANG, { commandTimeoutS: 2 })]);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(done.code, done.stderr).toBe(1);
    expect(oneLine(done.stderr)).toBe(
      `arena: ${join(dir, 'refresh.json')}: publish.command "sh -c sleep 1000 & echo $! > sleep.pid; wait" did not finish in 2 s (publish.commandTimeoutS): stopped it`,
    );
    expect(alive(Number(readFileSync(join(dir, 'sleep.pid'), 'utf8')))).toBe(false);
    expect(existsSync(join(dir, 'arena.db.refresh.lock'))).toBe(false);
    expect(statuses(dir)).toEqual([['failed'], ['failed']]);
  });

  it('a command that fails is one line, and the copy says failed', async () => {
    const dir = tmpDir('arena-publish-cmd-');
    const done = await runArena(['refresh', '--config', config(dir, ['sh', '-c', 'exit 3'])]);
    expect(done.code, done.stderr).toBe(1);
    expect(oneLine(done.stderr)).toBe(
      `arena: ${join(dir, 'refresh.json')}: publish.command "sh -c exit 3" failed (exit code 3)`,
    );
    expect(statuses(dir)).toEqual([['failed'], ['failed']]);
  });

  it('SIGTERM stops the refresh and the command at once; the lock is given back; both say interrupted', async () => {
    const dir = tmpDir('arena-publish-cmd-');
    const r = spawnArena(['refresh', '--config', config(dir, HANG)]);
    await until(() => existsSync(join(dir, 'sleep.pid')), 'the command to start');
    const pid = Number(readFileSync(join(dir, 'sleep.pid'), 'utf8'));
    const t0 = Date.now();
    r.child.kill('SIGTERM');
    const done = await r.done;
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(done.code, done.stderr).toBe(130);
    expect(alive(pid)).toBe(false);
    expect(existsSync(join(dir, 'arena.db.refresh.lock'))).toBe(false);
    expect(statuses(dir)).toEqual([['interrupted'], ['interrupted']]);
    // the next refresh takes the lock
    const again = await runArena(['refresh', '--config', config(dir, ['true'])]);
    expect(again.code, again.stderr).toBe(0);
  });
});
