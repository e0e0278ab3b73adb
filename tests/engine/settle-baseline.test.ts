// `--mode pairwise-baseline --until-settled` with a judge preferring longer answers and one clearly better and one
// clearly worse model: each stops early saying why, and a full run then pays exactly the skipped games.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { OWN, runArena, tmpDir } from '../support/cli.ts';

/** 24 questions × 2 turns per model, 2 models, 2 orders */
const FULL = 2 * 48 * 2;

let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer({ verdict: 'longer' });
});
afterAll(() => server.close());

const calls = () => server.log.filter((e) => e.path === '/v1/chat/completions' && e.status === 200);

describe('arena run --mode pairwise-baseline --until-settled', { timeout: 120_000 }, () => {
  it('stops each model once its interval excludes 50%, says why, and a full run then pays exactly the skipped games', async () => {
    const db = join(tmpDir('arena-settle-base-'), 'a.db');
    const base = ['run', '--db', db, '--judge', 'openai/judge', '--base-url', server.url, ...OWN];
    base.push(
      '--mode',
      'pairwise-baseline',
      '--baseline',
      'arena-drift',
      '--models',
      'arena-sage,arena-echo',
    );
    const before = calls().length;
    // the dry run pays nothing; with nothing stored it draws every model alike
    const dry0 = await runArena([...base, '--until-settled', '--round', '10', '--dry-run']);
    expect(dry0.code, dry0.stderr).toBe(0);
    expect(calls().length).toBe(before);
    const est0 = dry0.stdout.match(
      /--until-settled: about (\d+) judge calls \((\d+)–(\d+) over 20 simulated runs\) of the 192 the full plan still needs, simulated from the 0 stored games' outcomes \(none yet/,
    )!;
    expect(est0, dry0.stdout).not.toBeNull();
    expect(Number(est0[3])).toBeLessThanOrEqual(FULL);
    expect(Number(est0[2])).toBeGreaterThan(0);
    const s = await runArena([...base, '--until-settled', '--round', '10']);
    expect(s.code, s.stderr).toBe(0);
    const paid = calls().length - before;
    expect(s.stdout).toMatch(/^settled: every model is decided against the baseline/m);
    expect(s.stdout).toMatch(
      /^arena-sage: win rate \d+\.\d% \[[5-9]\d\.\d%, 100\.0%\] over 10 question\(s\), 20 of 48 matches; better than the baseline/m,
    );
    expect(s.stdout).toMatch(
      /^arena-echo: win rate 0\.0% \[0\.0%, 0\.0%\] over 10 question\(s\), 20 of 48 matches; worse/m,
    );
    const m = s.stdout.match(/(\d+) judge calls paid now; (\d+) of the full plan's (\d+) games stored/)!;
    expect(m, s.stdout).not.toBeNull();
    expect(Number(m[1])).toBe(paid);
    expect(Number(m[2])).toBe(paid);
    expect(Number(m[3])).toBe(FULL);
    expect(paid).toBeLessThan(FULL / 2);
    expect(paid % 4).toBe(0); // whole matches (both orders), the same number for each model
    // settled: the estimate is no more calls, while the full plan still needs the skipped ones
    const dry1 = await runArena([...base, '--until-settled', '--round', '10', '--dry-run']);
    expect(dry1.stdout).toMatch(
      new RegExp(`^${FULL} games planned, ${paid} already stored: ${FULL - paid} judge calls`, 'm'),
    );
    expect(dry1.stdout).toMatch(
      new RegExp(`about 0 judge calls \\(0–0 over 20 simulated runs\\) of the ${FULL - paid}`),
    );
    expect(calls().length - before).toBe(paid);
    // the full plan afterwards: exactly the skipped games, none paid twice
    const full = await runArena(base);
    expect(full.code, full.stderr).toBe(0);
    expect(calls().length - before).toBe(FULL);
    expect(new Set(calls().map((e) => e.hash)).size).toBe(calls().length);
    expect(full.stdout).toMatch(new RegExp(`: ${FULL - paid} played, 0 failed, ${paid} already stored`));
  });

  it('--width stops a model whose interval is narrow enough, and refuses a width that is not a share', async () => {
    const db = join(tmpDir('arena-settle-base-'), 'a.db');
    const base = ['run', '--db', db, '--judge', 'openai/judge', '--base-url', server.url, ...OWN];
    base.push('--mode', 'pairwise-baseline', '--baseline', 'arena-drift', '--models', 'arena-swift');
    const bad = await runArena([...base, '--until-settled', '--width', '1.5']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--width is a share of wins: a number above 0 and at most 1, not 1\.5/);
    const wrong = await runArena([...base, '--width', '0.5']);
    expect(wrong.stderr).toMatch(/--width and --json go with --until-settled/);
    const s = await runArena([...base, '--until-settled', '--round', '10', '--width', '1']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(
      /^arena-swift: .*; (the interval is narrower than --width|worse than the baseline)/m,
    );
  });
});
