// Judge succession (issue #37) from GPT-4's recorded verdicts to the study's replayed Llama-2-70B: the bridge (≤25%
// of 2,400 matches) has intervals containing the all-match figures; reruns pay nothing, --max-calls resumes.
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';
import { JUDGE_LLAMA2_DIR, MTBENCH_MODELS, noMtbenchOrJudgeLlama2, skipWhy } from '../support/materials.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { studyReplies } from '../support/study-six.ts';
import type { Figure } from '../../src/core/stats/succession.ts';
import type { SuccessionReport } from '../../src/reports/succession.ts';

const SKIP = skipWhy('succession', noMtbenchOrJudgeLlama2());
const NEW = 'openai/llama-2-70b-instruct-v2';
type Out = SuccessionReport & { stop: string; paid: number; rounds: number; candidates: number };

describe.skipIf(!!SKIP)('succession from GPT-4 to the study’s Llama-2-70B', { timeout: 600_000 }, () => {
  const dir = tmpDir('arena-succession-');
  const db = join(dir, 'arena.db');
  let server: OpenAIServer;
  let unknown = 0;
  const chat = () => server.log.filter((e) => e.path.endsWith('/chat/completions')).length;
  const succession = (d: string, more: string[] = []) =>
    arenaJson<Out>(
      [
        'judges',
        'succession',
        '--from',
        'gpt-4',
        '--to',
        NEW,
        '--base-url',
        server.url,
        '--concurrency',
        '16',
      ].concat(['--db', d], more),
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
  beforeAll(async () => {
    const replies = studyReplies(JUDGE_LLAMA2_DIR!);
    server = await startOpenAIServer({
      verdict: ({ user }) => replies.get(user) ?? `no recorded reply (${++unknown})`,
    });
    await mtbenchReleaseDb(db);
  });
  afterAll(async () => server?.close());

  let bridge: Out;
  let full: Out;

  it('plays a stratified bridge of at most 25% of the matches, each game once, every prompt one the study judged', async () => {
    bridge = await succession(db);
    expect(bridge.candidates).toBe(2400);
    expect(bridge.bridge.oldMatches).toBe(2400);
    expect(bridge.bridge.matches).toBeLessThanOrEqual(600);
    expect(['precise', 'max-calls']).toContain(bridge.stop);
    expect(bridge.paid).toBe(2 * bridge.bridge.matches);
    expect(chat()).toBe(bridge.paid);
    expect(unknown).toBe(0);
    // stratified: each (model pair, category) stratum holds the same number of bridge matches (2 games each)
    const sqlite = new Database(db, { readonly: true });
    const strata = sqlite
      .prepare(
        'SELECT min(model_1, model_2) AS lo, max(model_1, model_2) AS hi, category, count(*) AS n FROM games WHERE judge = ? GROUP BY 1, 2, 3',
      )
      .all(NEW) as { n: number }[];
    sqlite.close();
    expect(strata).toHaveLength(15 * 8);
    expect(new Set(strata.map((x) => x.n))).toEqual(new Set([bridge.paid / 120]));
    expect(bridge.judges.map((j) => [j.judge, j.games])).toEqual([
      ['gpt-4', 0],
      [NEW, bridge.paid],
    ]);
    expect(bridge.figures.ratings.map((r) => r.model)).toEqual([...MTBENCH_MODELS].sort());
  });

  it('rerun: pays nothing and reports the same; a larger --max-calls resumes the same bridge', async () => {
    const again = await succession(db);
    expect(again.paid).toBe(0);
    expect(again.figures).toEqual(bridge.figures);
    const before = chat();
    const more = await succession(db, ['--max-calls', String(bridge.paid + 240), '--precision', '0']);
    expect(more.paid).toBe(240);
    expect(chat() - before).toBe(240);
    expect(more.bridge.matches).toBe(bridge.bridge.matches + 120);
  });

  it('the bridge’s intervals (agreement, kappa, tau, every rating shift) contain the figures of all 2,400 matches of both judges (printed side by side)', async () => {
    const fullDb = join(dir, 'full.db');
    copyFileSync(db, fullDb);
    const before = chat();
    const models = [...MTBENCH_MODELS].join(',');
    await arenaOk(
      ['run', '--judge', NEW, '--base-url', server.url, '--models', models, '--concurrency', '16'].concat([
        '--db',
        fullDb,
      ]),
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
    // a full run pays only what the bridge did not play
    expect(chat() - before).toBe(4800 - 2 * (bridge.bridge.matches + 120));
    full = await succession(fullDb, ['--max-calls', '0']);
    expect(full.paid).toBe(0);
    expect(full.bridge.matches).toBe(2400);
    const f = bridge.figures;
    const g = full.figures;
    const rows: [string, Figure, Figure][] = [
      ['agreement (with ties)', f.agreement, g.agreement],
      ['agreement (without ties)', f.agreementWithoutTies, g.agreementWithoutTies],
      ["Cohen's kappa (with ties)", f.kappa, g.kappa],
      ["Cohen's kappa (without ties)", f.kappaWithoutTies, g.kappaWithoutTies],
      ["Kendall's tau", f.kendall, g.kendall],
      ...f.ratings.map((r, k): [string, Figure, Figure] => [
        `${r.model} difference`,
        r.difference,
        g.ratings[k]!.difference,
      ]),
    ];
    const show = (x: Figure) => `${x.value!.toFixed(3)} [${x.lo!.toFixed(3)}, ${x.hi!.toFixed(3)}]`;
    console.log(
      `bridge ${f.matches} matches vs all ${g.matches}:\n` +
        rows.map(([name, b, a]) => `  ${name}: bridge ${show(b)}; all ${show(a)}`).join('\n'),
    );
    for (const [name, b, a] of rows) {
      expect(a.value, name).not.toBeNull();
      expect(a.value!, name).toBeGreaterThanOrEqual(b.lo!);
      expect(a.value!, name).toBeLessThanOrEqual(b.hi!);
    }
  });

  it('stops once every figure is within the stated precision', async () => {
    const loose = await succession(await mtbenchReleaseDb(join(dir, 'loose.db')), [
      '--precision',
      '0.1',
      '--rating-precision',
      '150',
    ]);
    expect(loose.stop).toBe('precise');
    expect(loose.bridge.matches).toBeLessThan(600);
    const f = loose.figures;
    for (const x of [f.agreement, f.kappa]) expect((x.hi! - x.lo!) / 2).toBeLessThanOrEqual(0.1);
    for (const r of f.ratings) expect((r.difference.hi! - r.difference.lo!) / 2).toBeLessThanOrEqual(150);
  });

  it('--max-calls must be a number; an unknown old judge names the judges there are', async () => {
    const bad = await runArena(
      ['judges', 'succession', '--from', 'gpt-4', '--to', NEW, '--max-calls', 'many'].concat(['--db', db]),
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--max-calls');
    const r = await runArena(
      ['judges', 'succession', '--from', 'gpt-5', '--to', NEW, '--base-url', server.url].concat(['--db', db]),
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"gpt-5"');
  });
});
