// `untilSettled` in a refresh config: the repository's own league (24 questions × 2 turns, four models whose
// answers differ clearly in length) judged by the OpenAI-compatible test server preferring the longer answer.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import type { PlanLine } from '../../src/ops/refresh/types.ts';
import { games, readDb } from './helpers.ts';

const own = (m: string) => join(REPO_ROOT, 'questions', 'answers', `${m}.jsonl`);
/** 48 matches per pair, both orders */
const pairGames = 48 * 2;

function config(dir: string, url: string, models: string[], modes: unknown): string {
  const file = join(dir, 'refresh.json');
  const c = {
    db: 'arena.db',
    questions: [join(REPO_ROOT, 'questions', 'arena.jsonl')],
    answers: models.map(own),
    promptSet: 'arena',
    judges: [{ id: 'openai/judge', baseURL: url, price: { input: 10, output: 30 }, concurrency: 4 }],
    modes,
  };
  writeFileSync(file, JSON.stringify(c, null, 2));
  return file;
}

let srv: OpenAIServer;
beforeAll(async () => {
  srv = await startOpenAIServer({ verdict: 'longer' });
});
afterAll(() => srv.close());
const calls = () => srv.log.filter((e) => e.path === '/v1/chat/completions' && e.status === 200).length;

describe('arena refresh with untilSettled', { timeout: 180_000 }, () => {
  it('pays fewer calls than the full plan; a new model then plays most against its closest neighbour', async () => {
    const dir = tmpDir('arena-refresh-settle-');
    const modes = [{ mode: 'pairwise-all', untilSettled: { round: 12 } }];
    const three = ['arena-sage', 'arena-swift', 'arena-echo'];
    const c0 = calls();
    // the dry run estimates the settled run, not the full plan, and says so; it pays and stores nothing
    const cfg1 = config(dir, srv.url, three, modes);
    const dry1 = await runArena(['refresh', '--config', cfg1, '--dry-run', '--json']);
    expect(dry1.code, dry1.stderr).toBe(0);
    const plan1 = (JSON.parse(dry1.stdout) as { plan: PlanLine[] }).plan;
    expect(plan1).toHaveLength(1);
    expect(plan1[0]!.fullPlan).toMatchObject({ toPlay: 3 * pairGames });
    expect(plan1[0]!.toPlay).toBeGreaterThan(0);
    expect(plan1[0]!.toPlay).toBeLessThan(3 * pairGames);
    expect(plan1[0]!.estCost).toBeCloseTo(
      (plan1[0]!.fullPlan!.estCost * plan1[0]!.toPlay) / plan1[0]!.fullPlan!.toPlay,
      9,
    );
    expect(plan1[0]!.basis).toMatch(
      /^untilSettled estimate: the median of 20 simulated settled runs \(\d+-\d+ calls\)/,
    );
    expect(calls()).toBe(c0);
    expect(existsSync(join(dir, 'arena.db')) ? games(join(dir, 'arena.db')) : []).toHaveLength(0);
    const r1 = await runArena(['refresh', '--config', cfg1]);
    expect(r1.code, r1.stderr).toBe(0);
    const paid1 = calls() - c0;
    expect(games(join(dir, 'arena.db'))).toHaveLength(paid1);
    expect(paid1).toBeLessThan(3 * pairGames);
    expect(r1.stdout).toMatch(new RegExp(`; ${paid1} played, 0 failed`));
    // arena-drift's answers lie between arena-sage's (twice as long) and arena-swift's (0.7 times): with no
    // rating yet, its first round goes most to the middle of the league (arena-swift), its likely neighbour;
    // then its matches go where its order is still open
    const cfg2 = config(dir, srv.url, [...three, 'arena-drift'], modes);
    const dry2 = await runArena(['refresh', '--config', cfg2, '--dry-run']);
    expect(dry2.code, dry2.stderr).toBe(0);
    expect(dry2.stdout).toMatch(
      /refresh dry run: \d+ games to play, .*untilSettled: a simulated estimate.*the full plans: \d+ games\)/,
    );
    expect(dry2.stdout).toMatch(/from the \d+ stored games' outcomes, of the \d+ the full plan still needs/);
    const r2 = await runArena(['refresh', '--config', cfg2]);
    expect(r2.code, r2.stderr).toBe(0);
    const paid2 = calls() - c0 - paid1;
    expect(paid2).toBeLessThan(3 * pairGames);
    const added = games(join(dir, 'arena.db')).filter((g) => [g.model_1, g.model_2].includes('arena-drift'));
    const against = (m: string) => added.filter((g) => [g.model_1, g.model_2].includes(m)).length;
    expect(against('arena-sage') + against('arena-swift') + against('arena-echo')).toBe(paid2);
    expect(against('arena-swift')).toBeGreaterThan(against('arena-echo'));
    expect(against('arena-swift')).toBeGreaterThan(against('arena-sage'));
    // the first round alone (the run recorded as untilSettled round 1 that played arena-drift)
    const first = readDb(join(dir, 'arena.db'), (db) =>
      db
        .prepare(
          `select g.model_1, g.model_2 from games g join runs r on r.id = g.run_id
           where json_extract(r.config, '$.untilSettled') = 1 and 'arena-drift' in (g.model_1, g.model_2)`,
        )
        .all(),
    ) as { model_1: string; model_2: string }[];
    const inFirst = (m: string) => first.filter((g) => [g.model_1, g.model_2].includes(m)).length;
    expect(first).toHaveLength(2 * 12);
    expect(inFirst('arena-swift')).toBeGreaterThan(inFirst('arena-sage'));
    expect(inFirst('arena-swift')).toBeGreaterThan(inFirst('arena-echo'));
  });

  it('rejects bad untilSettled values naming the file, line and field', async () => {
    const dir = tmpDir('arena-refresh-settle-bad-');
    for (const [modes, field] of [
      [[{ mode: 'pairwise-all', untilSettled: { round: 0 } }], 'modes[0].untilSettled'],
      [[{ mode: 'pairwise-all', untilSettled: { width: 0.1 } }], 'modes[0].untilSettled'],
      [
        [{ mode: 'pairwise-baseline', baseline: 'arena-echo', untilSettled: { width: 2 } }],
        'modes[0].untilSettled',
      ],
      [[{ mode: 'single', untilSettled: true }], 'modes[0]'],
      [[{ mode: 'pairwise-all', untilSettled: 'yes' }], 'modes[0].untilSettled'],
    ] as const) {
      const cfg = config(dir, srv.url, ['arena-sage', 'arena-echo'], modes);
      const r = await runArena(['refresh', '--config', cfg]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`${cfg}:\\d+: field "${field.replace(/[[\].]/g, '\\$&')}`));
    }
  });
});
