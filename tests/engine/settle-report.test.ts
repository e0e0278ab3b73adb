// What an adaptive run reports: `arena run --until-settled --json` (matches per pair, the skipped pairs), and the
// note that `arena standings` and the site's /matrix show for a judge whose games come from adaptive rounds.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { OWN, runArena, tmpDir } from '../support/cli.ts';

interface Summary {
  stop: string;
  paid: number;
  stored: number;
  fullPlanCalls: number;
  pairs: { a: string; b: string; played: number; planned: number }[];
  skipped: [string, string][];
  runs: string[];
}

describe('an adaptive run reported', { timeout: 120_000 }, () => {
  it('--json gives matches per pair and the skipped pairs; standings and /matrix say the games are adaptive', async () => {
    const db = join(tmpDir('arena-settle-report-'), 'a.db');
    const models = ['--models', 'arena-drift,arena-echo,arena-sage,arena-swift'];
    const base = ['run', '--db', db, '--judge', 'mock/longer', ...models, ...OWN];
    const plain = await runArena(['standings', '--db', db]);
    expect(plain.stdout).not.toMatch(/adaptive/);
    const r = await runArena([...base, '--until-settled', '--round', '20', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.stop).toBe('settled');
    expect(s.fullPlanCalls).toBe(576);
    expect(s.pairs).toHaveLength(6);
    expect(s.pairs.every((p) => p.planned === 48)).toBe(true);
    // every played match is both orders: the matrix adds up to the calls paid
    expect(2 * s.pairs.reduce((n, p) => n + p.played, 0)).toBe(s.paid);
    expect(s.skipped).toEqual(s.pairs.filter((p) => !p.played).map((p) => [p.a, p.b]));
    expect(s.runs.length).toBeGreaterThan(0);

    const st = await runArena(['standings', '--db', db, '--judge', 'mock/longer']);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).toMatch(
      new RegExp(`come from an adaptive run \\(${s.runs.length} round\\(s\\) of --until-settled\\)`),
    );
    const store = openSqliteStore(db, { readonly: true });
    try {
      const html = await (await createApp({ store }).request('/matrix?judge=mock/longer')).text();
      expect(html).toMatch(/come from an adaptive run \(\d+ round\(s\) of --until-settled\)/);
    } finally {
      await store.close();
    }
    const bad = await runArena([...base, '--json']);
    expect(bad.stderr).toMatch(/--json go with --until-settled/);
  });
});
