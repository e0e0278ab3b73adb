// `arena export fastchat` round trip against real FastChat output (unmodified gen_judgment.py), and a mock
// tournament's export read with show_result's rules (mt-bench-protocol.md §4) to give our standings.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../support/materials.ts';

const DIR = MTBENCH_DIR;
skipWhy('export', noMtbench('the real MT-Bench release and FastChat format samples'));

type Row = Record<string, unknown>;
const readJsonl = (file: string): Row[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);

/** FastChat's play_a_match_pair / play_a_match_single output keys, in the order they write them. */
const PAIR_KEYS = [
  'question_id',
  'model_1',
  'model_2',
  'g1_winner',
  'g2_winner',
  'judge',
  'g1_user_prompt',
  'g1_judgment',
  'g2_user_prompt',
  'g2_judgment',
  'turn',
  'tstamp',
];
const SINGLE_KEYS = ['question_id', 'model', 'judge', 'user_prompt', 'judgment', 'score', 'turn', 'tstamp'];

/** Records as comparable strings: every field but tstamp (kept to the millisecond, as the database stores it). */
function records(rows: Row[]): string[] {
  return rows
    .map((r) =>
      JSON.stringify(
        Object.keys(r)
          .sort()
          .map((k) => [k, k === 'tstamp' ? Math.round((r[k] as number) * 1000) : r[k]]),
      ),
    )
    .sort();
}

interface Standing {
  model: string;
  win: number;
  loss: number;
  tie: number;
  winRate: number;
  lossRate: number;
  winRateAdjusted: number;
}

/** show_result.py --mode pairwise-all, as mt-bench-protocol.md §4.1 states its rules. */
function showResultPairwise(rows: Row[]): Map<string, Omit<Standing, 'model'>> {
  const acc = new Map<string, { win: number; loss: number; tie: number }>();
  const add = (m: string, k: 'win' | 'loss' | 'tie') => {
    const e = acc.get(m) ?? { win: 0, loss: 0, tie: 0 };
    e[k]++;
    acc.set(m, e);
  };
  for (const r of rows) {
    if (r.g1_winner === 'error' || r.g2_winner === 'error') continue;
    const [m1, m2] = [r.model_1 as string, r.model_2 as string];
    if (r.g1_winner === 'tie' || r.g1_winner !== r.g2_winner) {
      add(m1, 'tie');
      add(m2, 'tie');
    } else {
      const [w, l] = r.g1_winner === 'model_1' ? [m1, m2] : [m2, m1];
      add(w, 'win');
      add(l, 'loss');
    }
  }
  const out = new Map<string, Omit<Standing, 'model'>>();
  for (const [m, e] of acc) {
    const n = e.win + e.loss + e.tie;
    out.set(m, {
      ...e,
      winRate: e.win / n,
      lossRate: e.loss / n,
      winRateAdjusted: (e.win + 0.5 * e.tie) / n,
    });
  }
  return out;
}

describe.skipIf(!DIR)('arena export fastchat', { timeout: 240_000 }, () => {
  const SAMPLES = join(DIR ?? '', 'format_samples', 'phi-3_vs_phi-3-dpo');
  let db: string;
  let out: string;
  beforeAll(async () => {
    const dir = tmpDir();
    db = join(dir, 'phi.db');
    out = join(dir, 'out');
    await arenaOk(['import', 'questions', join(DIR!, 'question.jsonl'), '--db', db]);
    await arenaOk(['import', 'prompts', join(DIR!, 'judge_prompts.jsonl'), '--db', db]);
    await arenaOk([
      'import',
      'judgments',
      join(SAMPLES, 'gpt-4_pair.jsonl'),
      join(SAMPLES, 'gpt-4_single.jsonl'),
      '--db',
      db,
    ]);
    const printed = await arenaOk(['export', 'fastchat', '--judge', 'gpt-4', '--out', out, '--db', db]);
    expect(printed).toContain(`${join(out, 'gpt-4_pair.jsonl')}: 75 lines`);
    expect(printed).toContain(`${join(out, 'gpt-4_single.jsonl')}: 160 lines`);
  }, 240_000);

  it("the pair file holds the same records as FastChat's gpt-4_pair.jsonl (errors included)", () => {
    const original = readJsonl(join(SAMPLES, 'gpt-4_pair.jsonl'));
    const exported = readJsonl(join(out, 'gpt-4_pair.jsonl'));
    expect(exported).toHaveLength(original.length);
    for (const r of exported) expect(Object.keys(r)).toEqual(PAIR_KEYS);
    // the fields the task names, compared as parsed JSON, order-insensitive
    const pick = (r: Row) =>
      JSON.stringify(
        [
          'question_id',
          'model_1',
          'model_2',
          'turn',
          'g1_winner',
          'g2_winner',
          'g1_user_prompt',
          'g1_judgment',
          'g2_user_prompt',
          'g2_judgment',
        ].map((k) => r[k]),
      );
    expect(exported.map(pick).sort()).toEqual(original.map(pick).sort());
    // and every other field too (judge name and prompt, tstamp to the millisecond)
    expect(records(exported)).toEqual(records(original));
    expect(exported.filter((r) => r.g1_winner === 'error' || r.g2_winner === 'error')).toHaveLength(2);
  });

  it("the single file holds the same records as FastChat's gpt-4_single.jsonl", () => {
    const original = readJsonl(join(SAMPLES, 'gpt-4_single.jsonl'));
    const exported = readJsonl(join(out, 'gpt-4_single.jsonl'));
    expect(exported).toHaveLength(original.length);
    for (const r of exported) expect(Object.keys(r)).toEqual(SINGLE_KEYS);
    const pick = (r: Row) =>
      JSON.stringify(['question_id', 'model', 'turn', 'score', 'judgment'].map((k) => r[k]));
    expect(exported.map(pick).sort()).toEqual(original.map(pick).sort());
    expect(records(exported)).toEqual(records(original));
  });

  it('re-importing the export into a fresh database gives identical standings, and exports the same files again', async () => {
    const dir = tmpDir();
    const db2 = join(dir, 'again.db');
    await arenaOk(['import', 'questions', join(DIR!, 'question.jsonl'), '--db', db2]);
    await arenaOk(['import', 'prompts', join(DIR!, 'judge_prompts.jsonl'), '--db', db2]);
    await arenaOk([
      'import',
      'judgments',
      join(out, 'gpt-4_pair.jsonl'),
      join(out, 'gpt-4_single.jsonl'),
      '--db',
      db2,
    ]);
    for (const mode of ['pairwise-all', 'single']) {
      const a = await arenaJson<Row[]>(['standings', '--judge', 'gpt-4', '--mode', mode, '--db', db]);
      expect(a.length).toBeGreaterThan(0);
      expect(await arenaJson(['standings', '--judge', 'gpt-4', '--mode', mode, '--db', db2])).toEqual(a);
    }
    // the original's show_result figures, computed from FastChat's own file, are what both databases say
    const mine = await arenaJson<Standing[]>(['standings', '--judge', 'gpt-4', '--db', db2]);
    const expected = showResultPairwise(readJsonl(join(SAMPLES, 'gpt-4_pair.jsonl')));
    for (const r of mine) expect(r).toMatchObject(expected.get(r.model)!);
    await arenaOk(['export', 'fastchat', '--judge', 'gpt-4', '--out', join(dir, 'out'), '--db', db2]);
    for (const f of ['gpt-4_pair.jsonl', 'gpt-4_single.jsonl'])
      expect(
        readJsonl(join(dir, 'out', f))
          .map((r) => JSON.stringify(r))
          .sort(),
      ).toEqual(
        readJsonl(join(out, f))
          .map((r) => JSON.stringify(r))
          .sort(),
      );
  });

  it("a mock tournament exports files that show_result's rules read into the same standings", async () => {
    const dir = tmpDir();
    const tdb = join(dir, 't.db');
    const models = ['gpt-4', 'claude-v1', 'llama-13b'];
    await mtbenchReleaseDb(tdb, DIR);
    await arenaOk(['run', '--judge', 'mock/random', '--models', models.join(','), '--db', tdb]);
    await arenaOk([
      'run',
      '--judge',
      'mock/random',
      '--mode',
      'single',
      '--models',
      models.join(','),
      '--db',
      tdb,
    ]);
    await arenaOk(['export', 'fastchat', '--judge', 'mock/random', '--out', join(dir, 'out'), '--db', tdb]);
    // FastChat names the files after the judge model
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['random_pair.jsonl', 'random_single.jsonl']);

    const questions = new Map(
      readJsonl(join(DIR!, 'question.jsonl')).map((q) => [q.question_id as number, q.category as string]),
    );
    const prompts = new Map(
      readJsonl(join(DIR!, 'judge_prompts.jsonl')).map((p) => [p.name as string, p.type as string]),
    );
    const needsRef = new Set(['math', 'reasoning', 'coding']);
    const answers = new Map(
      models.flatMap((m) =>
        readJsonl(join(DIR!, 'model_answer', `${m}.jsonl`)).map(
          (a) => [`${m}/${a.question_id}`, (a.choices as { turns: string[] }[])[0]!.turns] as const,
        ),
      ),
    );
    const answer = (model: string, q: number, turn: number) => answers.get(`${model}/${q}`)![turn - 1]!;
    // where judge_prompts.jsonl puts Assistant A's answer: pair-v2 / pair-math-v1 (turn 1) and their -multi-turn forms (turn 2)
    const shownAsA = (text: string, turn: number) =>
      turn === 1
        ? `[The Start of Assistant A's Answer]\n${text}\n[The End of Assistant A's Answer]`
        : `### Assistant A:\n${text}\n\n<|The End of Assistant A's Conversation with User|>`;

    const pair = readJsonl(join(dir, 'out', 'random_pair.jsonl'));
    expect(pair).toHaveLength(3 * questions.size * 2); // C(3,2) pairs × questions × 2 turns, one line per match
    for (const r of pair) {
      expect(Object.keys(r)).toEqual(PAIR_KEYS);
      expect(questions.has(r.question_id as number)).toBe(true);
      expect(models).toContain(r.model_1);
      expect(models).toContain(r.model_2);
      expect(models.indexOf(r.model_1 as string)).toBeLessThan(models.indexOf(r.model_2 as string));
      expect([1, 2]).toContain(r.turn);
      for (const g of [r.g1_winner, r.g2_winner]) expect(['model_1', 'model_2', 'tie', 'error']).toContain(g);
      const [judge, prompt] = r.judge as [string, string];
      expect(judge).toBe('random');
      expect(prompts.get(prompt)).toBe('pairwise');
      // the prompt FastChat would pick: math prompts for reference categories, multi-turn prompts for turn 2
      expect(prompt).toBe(
        `${needsRef.has(questions.get(r.question_id as number)!) ? 'pair-math-v1' : 'pair-v2'}${r.turn === 2 ? '-multi-turn' : ''}`,
      );
      for (const k of ['g1_user_prompt', 'g1_judgment', 'g2_user_prompt', 'g2_judgment'])
        expect(typeof r[k]).toBe('string');
      // g1 shows model_1 as Assistant A, g2 (the swapped game) shows model_2 as Assistant A
      expect(r.g1_user_prompt).toContain(
        shownAsA(answer(r.model_1 as string, r.question_id as number, r.turn as number), r.turn as number),
      );
      expect(r.g2_user_prompt).toContain(
        shownAsA(answer(r.model_2 as string, r.question_id as number, r.turn as number), r.turn as number),
      );
      expect(typeof r.tstamp).toBe('number');
    }
    const standings = await arenaJson<Standing[]>(['standings', '--judge', 'mock/random', '--db', tdb]);
    const fromFile = showResultPairwise(pair);
    expect(standings.map((s) => s.model).sort()).toEqual([...fromFile.keys()].sort());
    for (const s of standings) {
      const e = fromFile.get(s.model)!;
      expect(s).toMatchObject({ win: e.win, loss: e.loss, tie: e.tie });
      expect(s.winRateAdjusted).toBeCloseTo(e.winRateAdjusted, 12);
    }

    const single = readJsonl(join(dir, 'out', 'random_single.jsonl'));
    expect(single).toHaveLength(models.length * questions.size * 2);
    for (const r of single) {
      expect(Object.keys(r)).toEqual(SINGLE_KEYS);
      expect(models).toContain(r.model);
      expect([1, 2]).toContain(r.turn);
      expect(
        Number.isInteger(r.score) &&
          ((r.score as number) === -1 || ((r.score as number) >= 1 && (r.score as number) <= 10)),
      ).toBe(true);
      expect(prompts.get((r.judge as string[])[1]!)).toBe('single');
    }
    // show_result --mode single (§4.2): drop score -1, mean per model over every remaining row
    const scores = await arenaJson<{ model: string; score: number }[]>([
      'standings',
      '--judge',
      'mock/random',
      '--mode',
      'single',
      '--db',
      tdb,
    ]);
    for (const s of scores) {
      const rows = single.filter((r) => r.model === s.model && r.score !== -1).map((r) => r.score as number);
      expect(s.score).toBeCloseTo(rows.reduce((a, b) => a + b, 0) / rows.length, 12);
    }
  });

  it('a judge the database does not know is an error (exit 1) naming the judges there, and no folder is made', async () => {
    const dir = tmpDir();
    const r = await runArena([
      'export',
      'fastchat',
      '--judge',
      'nobody',
      '--out',
      join(dir, 'out'),
      '--db',
      db,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown judge "nobody".*valid: /);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});
