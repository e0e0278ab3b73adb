// The shipped example configs run as documented (offline, with the mock judges) on the project's own questions.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { games } from './helpers.ts';

const EXAMPLES = join(REPO_ROOT, 'examples');

/** The example with its paths made absolute and its outputs moved to a scratch directory. */
function relocate(name: string, dir: string, outputs: Record<string, string>): string {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(EXAMPLES, p));
  const c = JSON.parse(readFileSync(join(EXAMPLES, name), 'utf8'));
  for (const k of ['questions', 'prompts', 'answers', 'references']) if (c[k]) c[k] = c[k].map(abs);
  if (c.baseline) c.baseline.answers = abs(c.baseline.answers);
  for (const k of c.checkpoints ?? []) if (k.answers) k.answers = abs(k.answers);
  Object.assign(c, outputs);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(c));
  return file;
}

describe('example configs', () => {
  it('examples/refresh.json: a dry run creates nothing; a refresh plays the round robin; the next one only the canary', async () => {
    const dir = tmpDir('arena-ex-');
    const cfg = relocate('refresh.json', dir, { db: 'arena.db' });
    const dry = await runArena(['refresh', '--config', cfg, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/refresh dry run: 584 games to play/);
    expect(existsSync(join(dir, 'arena.db'))).toBe(false);
    const r1 = await runArena(['refresh', '--config', cfg]);
    expect(r1.code, r1.stderr).toBe(0);
    // 4 models: 6 pairs x 24 questions x 2 turns x 2 orders, plus 4 anchor games x 2 orders
    expect(r1.stdout).toMatch(
      /OK; 4 new model\(s\), 0 changed answer\(s\); 584 played, 0 failed; \$0\.0000 spent/,
    );
    const r2 = await runArena(['refresh', '--config', cfg]);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stdout).toMatch(
      /OK; 0 new model\(s\), 0 changed answer\(s\); 8 played, 0 failed; .*canary change 0%/,
    );
    expect(games(join(dir, 'arena.db'))).toHaveLength(592);
    const hist = await runArena(['refreshes', '--db', join(dir, 'arena.db')]);
    expect(hist.stdout.match(/\bok\b/g)).toHaveLength(2);
  });

  it('examples/checkpoints.json: three checkpoints, two judges, report and chart', async () => {
    const dir = tmpDir('arena-ex-ckpt-');
    const cfg = relocate('checkpoints.json', dir, { db: 'ckpt.db', chart: 'chart.svg' });
    const r = await runArena(['checkpoints', 'run', '--config', cfg]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /judge\s+checkpoint\s+step\s+win rate \[95%\]\s+n\s+vs previous\s+vs best so far\s+best/,
    );
    expect(r.stdout.match(/step-\d000/g)!.length).toBeGreaterThanOrEqual(6);
    expect(r.stdout).toMatch(/best per judge: mock\/longer: step-\d000; mock\/random: step-\d000/);
    expect(readFileSync(join(dir, 'chart.svg'), 'utf8')).toMatch(/^<svg[\s\S]*mock\/longer[\s\S]*<\/svg>/);
  });
});
