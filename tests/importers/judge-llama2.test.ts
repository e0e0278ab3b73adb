// The "Judge Llama 2" study's 2,400 matches (../shared/judge_llama2) imported as recorded, and the study's
// findings computed by the CLI, each checked against tests/reference/judge_llama2.py, which reads the raw
// .jsonl.gz and the release's CSVs directly (FastChat's show_result / compute_agreement, written in Python).
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, REPO_ROOT, tmpDir } from '../support/cli.ts';
import { JUDGE_LLAMA2_DIR, MTBENCH_DIR, noMtbenchOrJudgeLlama2, skipWhy } from '../support/materials.ts';

const MT = MTBENCH_DIR;
const JL = JUDGE_LLAMA2_DIR;
const PYTHON = '/usr/bin/python3';
const numpy = spawnSync(PYTHON, ['-c', 'import numpy'], { encoding: 'utf8' });
const SKIP = skipWhy(
  'judge-llama2',
  noMtbenchOrJudgeLlama2(),
  numpy.status !== 0 ? `${PYTHON} cannot import numpy` : undefined,
);

const JUDGE = 'llama-2-70b-instruct-v2';
const FILE = JL ? join(JL, 'model_judgment', 'L40-Llama-2-70b-instruct-v2.jsonl.gz') : '';

interface Reference {
  parsers: {
    recorded: number;
    fastchat: number;
    last: number;
    lenient: number;
    recordedDiffersFromFastchat: number;
  };
  standings: {
    model: string;
    win: number;
    loss: number;
    tie: number;
    winRate: number;
    lossRate: number;
    winRateAdjusted: number;
  }[];
  agreement: { turn: number; setup: string; total: number; agree: number; ratio: number }[];
  quality: Record<
    'llama' | 'gpt4',
    {
      turn: number;
      errorsOneGame: number;
      errorsBothGames: number;
      consistent: number;
      inconsistent: number;
      ties: number;
    }[]
  >;
  pearson: number;
}

describe.skipIf(!!SKIP)('the Judge Llama 2 study file, imported as recorded (issue #10)', () => {
  const dir = tmpDir('arena-jl2-');
  const db = join(dir, 'arena.db');
  let ref: Reference;
  let importOut: string;

  beforeAll(async () => {
    const r = spawnSync(
      PYTHON,
      [
        join(REPO_ROOT, 'tests/reference/judge_llama2.py'),
        FILE,
        join(MT!, 'human_judgments/mt_bench_human.csv'),
        join(MT!, 'human_judgments/mt_bench_gpt4_pair.csv'),
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (r.status !== 0) throw new Error(`reference failed: ${r.stderr}`);
    ref = JSON.parse(r.stdout) as Reference;
    await arenaOk(['import', 'mtbench', '--dir', MT!, '--db', db]);
    importOut = await arenaOk(['import', 'judgments', FILE, '--judge', JUDGE, '--db', db]);
  }, 300_000);

  it('imports all 4,800 games under --judge, keeps every recorded verdict and reports the ones FastChat reads otherwise in one line', () => {
    expect(importOut).toContain('4800 games');
    const note = importOut.split('\n').filter((l) => l.includes('recorded'));
    expect(note).toHaveLength(1);
    expect(note[0]).toContain(
      `${ref.parsers.recordedDiffersFromFastchat} of 4800 recorded verdict(s) differ from FastChat's reading`,
    );
    expect(note[0]).toContain(`arena reparse --judge ${JUDGE}`);
    const sqlite = new Database(db, { readonly: true });
    try {
      const rows = sqlite
        .prepare(
          "SELECT parser, count(*) AS n, sum(verdict = 'error') AS errors FROM games WHERE judge = ? GROUP BY parser ORDER BY parser",
        )
        .all(JUDGE) as { parser: string; n: number; errors: number }[];
      expect(rows.map((r) => [r.parser, r.n])).toEqual([
        ['fastchat@1', 4800 - ref.parsers.recordedDiffersFromFastchat],
        ['recorded', ref.parsers.recordedDiffersFromFastchat],
      ]);
      expect(rows.reduce((s, r) => s + r.errors, 0)).toBe(ref.parsers.recorded);
      expect(
        (
          sqlite
            .prepare("SELECT count(*) AS n FROM games WHERE judge = 'text-generation-webui-api'")
            .get() as { n: number }
        ).n,
      ).toBe(0);
    } finally {
      sqlite.close();
    }
  });

  it('reparse --dry-run reports the errors each parser leaves, and changes nothing', async () => {
    for (const parser of ['fastchat', 'last', 'lenient'] as const) {
      const r = await arenaJson<{
        games: number;
        errors: number;
        errorsByParser: Record<string, number>;
        storedParsers: Record<string, number>;
      }>(['reparse', '--judge', JUDGE, '--parser', parser, '--dry-run', '--db', db]);
      expect(r.games).toBe(4800);
      expect(r.errors).toBe(ref.parsers[parser]);
      expect(r.errorsByParser).toEqual({
        stored: ref.parsers.recorded,
        fastchat: ref.parsers.fastchat,
        last: ref.parsers.last,
        lenient: ref.parsers.lenient,
      });
      expect(r.storedParsers.recorded).toBe(ref.parsers.recordedDiffersFromFastchat);
    }
    const text = await arenaOk(['reparse', '--judge', JUDGE, '--parser', 'lenient', '--dry-run', '--db', db]);
    expect(text).toContain(`unparsable (error) verdicts each parser leaves: stored ${ref.parsers.recorded}`);
  }, 120_000);

  it("standings = FastChat's show_result on the file (errors dropped, disagreement = tie)", async () => {
    const rows = await arenaJson<Reference['standings']>([
      'standings',
      '--judge',
      JUDGE,
      '--mode',
      'pairwise-all',
      '--db',
      db,
    ]);
    expect(rows.map((r) => r.model)).toEqual(ref.standings.map((r) => r.model));
    for (const want of ref.standings) {
      const got = rows.find((r) => r.model === want.model)!;
      expect([got.win, got.loss, got.tie]).toEqual([want.win, want.loss, want.tie]);
      for (const k of ['winRate', 'lossRate', 'winRateAdjusted'] as const)
        expect(got[k]).toBeCloseTo(want[k], 12);
    }
  }, 60_000);

  it('agreement with the experts = compute_agreement after the study preparation, per turn, with and without ties', async () => {
    const rows = await arenaJson<Reference['agreement']>([
      'agreement',
      '--judges',
      `${JUDGE},human`,
      '--db',
      db,
    ]);
    expect(rows.map(({ turn, setup, total, agree }) => ({ turn, setup, total, agree }))).toEqual(
      ref.agreement.map(({ turn, setup, total, agree }) => ({ turn, setup, total, agree })),
    );
  }, 60_000);

  it('judges --report: errors, consistency and ties per judge and turn, and Pearson r of the adjusted win rates', async () => {
    const r = await arenaJson<{
      quality: (Reference['quality']['llama'][number] & { judge: string })[];
      correlation: { judge1: string; judge2: string; variant: string; models: number; r: number }[];
    }>(['judges', '--report', '--judge', `${JUDGE},gpt-4`, '--db', db]);
    const pick = (judge: string) =>
      r.quality
        .filter((q) => q.judge === judge)
        .map(({ turn, errorsOneGame, errorsBothGames, consistent, inconsistent, ties }) => ({
          turn,
          errorsOneGame,
          errorsBothGames,
          consistent,
          inconsistent,
          ties,
        }));
    expect(pick(JUDGE)).toEqual(ref.quality.llama);
    expect(pick('gpt-4')).toEqual(ref.quality.gpt4);
    const adj = r.correlation.find((c) => c.variant === 'adjusted')!;
    expect(adj.models).toBe(6);
    expect(adj.r).toBeCloseTo(ref.pearson, 12);
    // the study's reading: about twice GPT-4's inconsistency, ~90% of the errors on turn 2
    const [l0, g0] = [pick(JUDGE).find((q) => q.turn === 0)!, pick('gpt-4').find((q) => q.turn === 0)!];
    const ratio =
      l0.inconsistent /
      (l0.consistent + l0.inconsistent) /
      (g0.inconsistent / (g0.consistent + g0.inconsistent));
    expect(ratio).toBeGreaterThan(1.5);
    const l2 = pick(JUDGE).find((q) => q.turn === 2)!;
    expect((l2.errorsOneGame + l2.errorsBothGames) / (l0.errorsOneGame + l0.errorsBothGames)).toBeGreaterThan(
      0.85,
    );
  }, 60_000);

  // last: it changes the stored verdicts and puts them back
  it('reparse --parser lenient replaces the recorded verdicts and --parser recorded restores every one of them', async () => {
    const rows = () => {
      const sqlite = new Database(db, { readonly: true });
      try {
        return sqlite
          .prepare('SELECT id, verdict, parser FROM games WHERE judge = ? ORDER BY id')
          .all(JUDGE) as { id: string; verdict: string; parser: string }[];
      } finally {
        sqlite.close();
      }
    };
    const before = rows();
    const recorded = before.filter((r) => r.parser === 'recorded').length;
    expect(recorded).toBe(ref.parsers.recordedDiffersFromFastchat);
    await arenaOk(['reparse', '--judge', JUDGE, '--parser', 'lenient', '--db', db]);
    expect(rows().filter((r) => r.parser === 'recorded')).toHaveLength(0);
    expect(rows()).not.toEqual(before);
    const out = await arenaOk(['reparse', '--judge', JUDGE, '--parser', 'recorded', '--db', db]);
    expect(out).toContain('4800 games re-parsed with recorded');
    expect(rows()).toEqual(before);
  }, 120_000);
});

describe('recorded judgments in other shapes', () => {
  const dir = tmpDir('arena-recorded-');
  const db = join(dir, 'arena.db');
  const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const line = (over: Record<string, unknown>) => ({
    question_id: 1,
    model_1: 'm1',
    model_2: 'm2',
    g1_winner: 'model_1',
    g2_winner: 'model_1',
    judge: ['serving-software', 'my-pair'],
    g1_user_prompt: 'u1',
    g1_judgment: '[[A]]',
    g2_user_prompt: 'u2',
    g2_judgment: '[[B]]',
    turn: 1,
    tstamp: 1.5,
    ...over,
  });

  it('a plain file with extra fields and a verdict only a lenient parser gives imports; the summary names the count; reparse re-reads it', async () => {
    writeFileSync(join(dir, 'q.jsonl'), jsonl({ question_id: 1, category: 'writing', turns: ['a?', 'b?'] }));
    await arenaOk(['import', 'questions', join(dir, 'q.jsonl'), '--db', db]);
    const file = join(dir, 'study_pair.jsonl');
    writeFileSync(
      file,
      jsonl(
        line({ orig_prompt1: 'SYSTEM\nu1', orig_prompt2: 'SYSTEM\nu2', unknown_field: [1, 2] }),
        line({ model_2: 'm3', g1_judgment: 'So [[Assistant A]] wins.', g2_judgment: '[B]' }),
      ),
    );
    const out = await arenaOk(['import', 'judgments', file, '--judge', 'my-judge', '--db', db]);
    expect(out).toContain('4 games');
    expect(out).toContain('2 of 4 recorded verdict(s) differ');
    const sqlite = new Database(db, { readonly: true });
    const rows = sqlite
      .prepare(
        'SELECT judge, model_2, "order", verdict, parser, system_prompt FROM games ORDER BY model_2, "order"',
      )
      .all() as Record<string, string>[];
    sqlite.close();
    expect(rows.map((r) => [r.judge, r.model_2, r.order, r.verdict, r.parser])).toEqual([
      ['my-judge', 'm2', 'AB', 'model_1', 'fastchat@1'],
      ['my-judge', 'm2', 'BA', 'model_1', 'fastchat@1'],
      ['my-judge', 'm3', 'AB', 'model_1', 'recorded'],
      ['my-judge', 'm3', 'BA', 'model_1', 'recorded'],
    ]);
    expect(rows[0]!.system_prompt).toBe('SYSTEM');
    const fc = await arenaJson<{ errors: number; changed: number }>([
      'reparse',
      '--judge',
      'my-judge',
      '--parser',
      'fastchat',
      '--db',
      db,
    ]);
    expect([fc.errors, fc.changed]).toEqual([2, 2]);
    const len = await arenaJson<{ errors: number; changed: number }>([
      'reparse',
      '--judge',
      'my-judge',
      '--parser',
      'lenient',
      '--db',
      db,
    ]);
    expect([len.errors, len.changed]).toEqual([0, 2]);
  }, 120_000);
});
