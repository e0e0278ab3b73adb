// The refresh lock (src/cli/lock.ts): an exclusive-create lock file beside the database. Several real
// processes race for it; a lock whose process is gone is taken over; a live holder is named.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeLock } from '../../src/cli/lock.ts';
import { REPO_ROOT, tmpDir } from '../support/cli.ts';

const dir = tmpDir('arena-lock-');

describe('takeLock', () => {
  it('creates the lock with our pid, refuses a second taker while held, and gives it back', () => {
    const db = join(dir, 'a.db');
    const unlock = takeLock(db, 'refresh');
    expect(readFileSync(`${db}.refresh.lock`, 'utf8')).toBe(String(process.pid));
    // another job of this same process: refused too
    expect(() => takeLock(db, 'refresh')).toThrow(
      `another refresh (pid ${process.pid}) is running on ${db} (lock ${db}.refresh.lock`,
    );
    unlock();
    expect(existsSync(`${db}.refresh.lock`)).toBe(false);
    takeLock(db, 'refresh')();
    // ':memory:' has no file to guard
    takeLock(':memory:', 'refresh')();
  });

  it('a live process holding it is named; once that process is gone its lock is taken over', async () => {
    const db = join(dir, 'b.db');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${db}.refresh.lock`, String(holder.pid));
      expect(() => takeLock(db, 'refresh')).toThrow(`another refresh (pid ${holder.pid}) is running`);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((r) => holder.once('exit', r));
    }
    const unlock = takeLock(db, 'refresh');
    expect(readFileSync(`${db}.refresh.lock`, 'utf8')).toBe(String(process.pid));
    unlock();
  });

  it('a lock file without a pid (being written this instant) is respected', () => {
    const db = join(dir, 'c.db');
    writeFileSync(`${db}.refresh.lock`, '');
    expect(() => takeLock(db, 'refresh')).toThrow(/another refresh is running/);
    expect(readFileSync(`${db}.refresh.lock`, 'utf8')).toBe('');
  });

  it('giving back never removes a lock another process has taken since', () => {
    const db = join(dir, 'd.db');
    const unlock = takeLock(db, 'refresh');
    writeFileSync(`${db}.refresh.lock`, '1'); // pid 1: some other process now holds it
    unlock();
    expect(readFileSync(`${db}.refresh.lock`, 'utf8')).toBe('1');
  });

  it('of 6 processes started together, exactly one takes the lock', async () => {
    const db = join(dir, 'race.db');
    // each waits for the same start time, then tries; the one that took it holds it until it is killed
    const script = `import { takeLock } from ${JSON.stringify(join(REPO_ROOT, 'src/cli/lock.ts'))};
      const go = Number(process.argv[1]);
      while (Date.now() < go) {}
      try { takeLock(${JSON.stringify(db)}, 'refresh'); console.log('took'); setTimeout(() => {}, 120000); } catch (e) { console.log('refused: ' + e.message); }`;
    const go = String(Date.now() + 4000);
    const procs = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, go], {
        cwd: REPO_ROOT,
      }),
    );
    try {
      const runs = await Promise.all(
        procs.map(
          (p) =>
            new Promise<string>((resolve) => {
              let out = '';
              p.stdout.on('data', (d) => {
                out += d;
                if (out.includes('\n')) resolve(out.trim());
              });
              p.stderr.on('data', (d) => (out += d));
              p.on('exit', () => resolve(out.trim()));
            }),
        ),
      );
      expect(
        runs.filter((r) => r === 'took'),
        runs.join('\n'),
      ).toHaveLength(1);
      expect(runs.filter((r) => r.startsWith('refused: another refresh'))).toHaveLength(5);
    } finally {
      for (const p of procs) p.kill('SIGKILL');
    }
  }, 120_000);
});
