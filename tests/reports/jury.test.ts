// Juries (issue #37): GPT-4 and the study's Llama-2-70B pooled on MT-Bench against tests/reference/jury.py on the
// raw files; the pooling rules on small hand-made cases; bad configs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { releaseJudgmentsDb } from '../support/mtbench-release.ts';
import { referenceOnce } from '../support/python.ts';
import { JUDGE_LLAMA2_DIR, MTBENCH_DIR, noMtbenchOrJudgeLlama2, skipWhy } from '../support/materials.ts';
import { effectiveVotes, poolGames, poolOutcomes, poolScores } from '../../src/core/jury.ts';
import type { MatchOutcome } from '../../src/core/types.ts';
import type { JuryReport } from '../../src/reports/jury.ts';

const m = (
  model1: string,
  model2: string,
  outcome: MatchOutcome['outcome'],
  questionId = 1,
): MatchOutcome => ({
  questionId,
  turn: 1,
  model1,
  model2,
  outcome,
});

describe('pooling', () => {
  it('majority: more than half of the members with a verdict, else a tie; mean: the mean score', () => {
    expect(poolScores([1, 1, 0], 'majority')).toBe(1);
    expect(poolScores([1, 0.5], 'majority')).toBe(0.5);
    expect(poolScores([1, 0.5], 'mean')).toBe(1);
    expect(poolScores([1, 0, 0.5], 'mean')).toBe(0.5);
    expect(poolScores([0, 0.5, 0.5], 'majority')).toBe(0.5);
    expect(poolScores([], 'mean')).toBeUndefined();
  });

  it('members stored in either orientation are aligned; an error abstains; a match a member lacks is left out', () => {
    const a = [
      m('x', 'y', 'model_1'),
      m('x', 'y', 'error', 2),
      m('x', 'y', 'error', 3),
      m('x', 'y', 'tie', 4),
    ];
    const b = [m('y', 'x', 'model_2'), m('y', 'x', 'model_1', 2), m('x', 'y', 'error', 3)];
    expect(poolOutcomes([a, b], 'majority').map((o) => [o.questionId, o.outcome])).toEqual([
      [1, 'model_1'],
      [2, 'model_2'],
      [3, 'error'],
    ]);
  });

  it('pooled games: per answer shown first, members stored either way aligned (what position bias reads)', () => {
    const g = (model1: string, model2: string, order: 'AB' | 'BA', verdict: 'model_1' | 'model_2') => ({
      questionId: 1,
      turn: 1,
      model1,
      model2,
      order,
      verdict,
    });
    // a: whichever answer is shown first; b (stored as y vs x): always x
    const a = [g('x', 'y', 'AB', 'model_1'), g('x', 'y', 'BA', 'model_2')];
    const b = [g('y', 'x', 'AB', 'model_2'), g('y', 'x', 'BA', 'model_2')];
    for (const rule of ['majority', 'mean'] as const)
      expect(poolGames([a, b], rule)).toEqual([
        { ...g('x', 'y', 'AB', 'model_1') },
        { ...g('x', 'y', 'BA', 'model_1'), verdict: 'tie' },
      ]);
    expect(poolGames([a, [b[0]!]], 'majority')).toEqual([
      { ...g('x', 'y', 'BA', 'model_1'), verdict: 'tie' },
    ]);
  });

  it("effective votes: n independent members count n, identical ones 1 (Kish's design effect)", () => {
    expect(effectiveVotes(3, 0)).toBe(3);
    expect(effectiveVotes(3, 1)).toBe(1);
    expect(effectiveVotes(2, 0.5)).toBeCloseTo(4 / 3, 12);
    expect(effectiveVotes(2, -0.2)).toBe(2);
  });
});

const SKIP = skipWhy('jury', noMtbenchOrJudgeLlama2());
const STUDY = 'llama-2-70b-instruct-v2';

interface Ref {
  matches: number;
  errors: number;
  standings: { model: string; win: number; loss: number; tie: number }[];
  pair: {
    matches: number;
    agree: number;
    withoutTie: { total: number; agree: number };
    kappa: number;
    kappaWithoutTie: number;
  };
  effectiveVotes: number;
  people: Record<
    string,
    { votes: number; rows: { judge: string; turn: number; setup: string; total: number; agree: number }[] }
  >;
}

describe.skipIf(!!SKIP)('a jury of the two recorded judges on MT-Bench', { timeout: 300_000 }, () => {
  const dir = tmpDir('arena-jury-');
  const db = join(dir, 'arena.db');
  const cfg = join(dir, 'juries.json');
  const file = join(JUDGE_LLAMA2_DIR ?? '', 'model_judgment/L40-Llama-2-70b-instruct-v2.jsonl.gz');
  const csv = (f: string) => join(MTBENCH_DIR ?? '', 'human_judgments', f);
  beforeAll(async () => {
    // the release with `file` imported under STUDY, once per run
    await releaseJudgmentsDb(db, file, STUDY);
    writeFileSync(
      cfg,
      JSON.stringify({
        juries: [
          { name: 'recorded', judges: ['gpt-4', STUDY] },
          { name: 'recorded-mean', judges: ['gpt-4', STUDY], rule: 'mean' },
        ],
      }),
    );
  }, 300_000);

  for (const rule of ['majority', 'mean'] as const)
    it(`${rule}: leaderboard, members' agreement and kappa, effective votes, agreement with the 3,355 expert and author votes = jury.py`, async () => {
      const ref = referenceOnce<Ref>('jury.py', [
        file,
        csv('mt_bench_human.csv'),
        csv('mt_bench_gpt4_pair.csv'),
        rule,
      ]);
      const name = rule === 'majority' ? 'recorded' : 'recorded-mean';
      const [r] = await arenaJson<JuryReport[]>([
        'judges',
        'jury',
        '--config',
        cfg,
        '--name',
        name,
        '--db',
        db,
        '--json',
      ]);
      expect([r!.jury, r!.matches, r!.errors]).toEqual([`jury/${name}`, ref.matches, ref.errors]);
      expect(
        r!.standings
          .map(({ model, win, loss, tie }) => ({ model, win, loss, tie }))
          .sort((a, b) => (a.model < b.model ? -1 : 1)),
      ).toEqual(ref.standings);
      const p = r!.pairs[0]!;
      expect([p.withTie.total, p.withTie.agree, p.withoutTie.total, p.withoutTie.agree]).toEqual([
        ref.pair.matches,
        ref.pair.agree,
        ref.pair.withoutTie.total,
        ref.pair.withoutTie.agree,
      ]);
      expect(p.withTie.kappa).toBeCloseTo(ref.pair.kappa, 12);
      expect(p.withoutTie.kappa).toBeCloseTo(ref.pair.kappaWithoutTie, 12);
      expect(p.withTie.lo!).toBeLessThan(p.withTie.kappa);
      expect(p.withTie.hi!).toBeGreaterThan(p.withTie.kappa);
      expect(r!.effectiveVotes).toBeCloseTo(ref.effectiveVotes, 12);
      // position bias from games: GPT-4 has only recorded verdicts, so the jury has no games of its own
      expect(r!.bias.map((b) => [b.judge, b.games, b.positionA === null])).toEqual([
        [`jury/${name}`, 0, true],
        ['gpt-4', 0, true],
        [STUDY, 4800, false],
      ]);
      expect(r!.people.map((x) => [x.people, x.votes])).toEqual([
        ['human', ref.people.human!.votes],
        ['author', ref.people.author!.votes],
      ]);
      expect(ref.people.human!.votes + ref.people.author!.votes).toBe(3355);
      const names: Record<string, string> = { jury: `jury/${name}`, 'gpt-4': 'gpt-4', llama: STUDY };
      for (const x of r!.people)
        expect(
          x.rows.map(({ judge, turn, setup, total, agree }) => ({ judge, turn, setup, total, agree })),
        ).toEqual(ref.people[x.people]!.rows.map((row) => ({ ...row, judge: names[row.judge] })));
    });

  it('prints the same as a table; the plain `arena judges --judge` still runs beside the sub-command', async () => {
    const text = await arenaOk(['judges', 'jury', '--config', cfg, '--db', db]);
    expect(text).toContain('jury/recorded (majority of gpt-4, llama-2-70b-instruct-v2): 2400 matches');
    expect(text).toMatch(/effective independent votes: 1\.33 of 2; n_eff = n \/ \(1 \+ \(n - 1\)/);
    // citty ran the parent's own run after its sub-command: the judges' table followed the jury's
    expect(text).not.toMatch(/^judge\s+games\s+votes/m);
    expect(await arenaOk(['judges', '--judge', 'gpt-4', '--db', db])).toContain('gpt-4');
  });

  it('a refresh refuses a jury member that nothing plays and the database does not hold; a recorded one is fine', async () => {
    const mt = (p: string) => join(MTBENCH_DIR!, p);
    const refreshCfg = (members: string[]) => {
      const f = join(dir, 'refresh.json');
      writeFileSync(
        f,
        JSON.stringify({
          db,
          questions: [mt('question.jsonl')],
          prompts: [mt('judge_prompts.jsonl')],
          answers: [mt('model_answer')],
          promptSet: 'mt-bench',
          judges: [{ id: 'mock/longer' }],
          juries: [{ name: 'panel', judges: members }],
        }),
      );
      return f;
    };
    const bad = await runArena([
      'refresh',
      '--config',
      refreshCfg(['mock/longer', 'openai/nobody']),
      '--dry-run',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'field "juries[0].judges[1]": "openai/nobody" is no judge of this config and has no games or verdicts in the database',
    );
    const ok = await runArena(['refresh', '--config', refreshCfg(['mock/longer', 'gpt-4']), '--dry-run']);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('a bad jury is refused naming the file, line and field; an unknown member names the judges there are', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{\n  "juries": [\n    { "name": "one", "judges": ["gpt-4"] }\n  ]\n}\n');
    const r = await runArena(['judges', 'jury', '--config', bad, '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:3: field "juries[0].judges"`);
    writeFileSync(bad, JSON.stringify({ juries: [{ name: 'two', judges: ['gpt-4', 'gpt-5'] }] }));
    const u = await runArena(['judges', 'jury', '--config', bad, '--db', db]);
    expect(u.code).toBe(1);
    expect(u.stderr).toContain('jury "two": no games or recorded verdicts for "gpt-5" (judges: ');
    const n = await runArena(['judges', 'jury', '--config', cfg, '--name', 'nobody', '--db', db]);
    expect(n.stderr).toContain(`${cfg}: no jury named "nobody" (juries: recorded, recorded-mean)`);
  });
});
