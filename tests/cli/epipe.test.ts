// `arena … | head` (issue 12, item 3): a reader closing the pipe early ends the command quietly with its status,
// never an EPIPE stack trace. The output is well over a pipe's 64 KB buffer, so writes really fail.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ARENA_BIN, arenaOk, playOwn, REPO_ROOT, tmpDir } from '../support/cli.ts';

/** `arena ...args | head -c keep` in bash: arena's status (PIPESTATUS), head's output, arena's stderr. */
function arenaHead(args: string[], keep: number): Promise<{ code: number; got: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const quoted = [process.execPath, ARENA_BIN, ...args]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const script = `${quoted} 2>"$ARENA_ERR" | head -c ${keep}; echo "$\{PIPESTATUS[0]}" >"$ARENA_CODE"`;
    const dir = tmpDir();
    const env = { ...process.env, NO_COLOR: '1', ARENA_ERR: join(dir, 'err'), ARENA_CODE: join(dir, 'code') };
    const child = spawn('bash', ['-c', script], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let got = 0;
    child.stdout.on('data', (d: Buffer) => (got += d.length));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({
        code: Number(readFileSync(env.ARENA_CODE, 'utf8').trim()),
        got,
        stderr: readFileSync(env.ARENA_ERR, 'utf8'),
      });
    });
  });
}

describe('a reader that closes the pipe early', { timeout: 300_000 }, () => {
  let db: string;
  beforeAll(async () => {
    db = join(tmpDir(), 'arena.db');
    await playOwn(db, 'mock/a', 'arena-sage,arena-echo,arena-drift,arena-swift');
  }, 200_000);

  it('ends the command quietly with exit status 0 (no stack trace), for JSON and for tables', async () => {
    const whole = await arenaOk(['judges', '--db', db, '--games', 'mock/a', '--json']);
    expect(whole.length).toBeGreaterThan(100_000); // more than a pipe buffer holds
    for (const extra of [['--json'], []]) {
      const r = await arenaHead(['judges', '--db', db, '--games', 'mock/a', ...extra], 10);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.got).toBe(10);
    }
  });

  it('keeps the status so far: a usage error still exits 1 with its message on stderr', async () => {
    const r = await arenaHead(['standings', '--db', db, '--judge', 'mock/nobody'], 1);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/mock\/nobody/);
    expect(r.stderr).not.toMatch(/EPIPE/);
  });
});
