// MEC + BPC and the review queue end to end, against a server whose judge writes evidence then scores, with noise,
// a first-position bias and unparsable replies; "humans" know each answer's hidden quality.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normal, seededRng } from '../../../src/core/stats/random.ts';
import { arenaJson, arenaOk, runArena, tmpDir } from '../../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../../support/openai-server.ts';

const MT = process.env.MTBENCH_DIR;
const MODELS = ['gpt-4', 'vicuna-13b-v1.2', 'llama-13b'];
const QUESTIONS = Array.from({ length: 12 }, (_, k) => 81 + k); // writing and roleplay: no reference answers needed
const BROKEN = 'Compose an engaging travel blog post about a recent trip to Hawaii'; // question 81: every reply unparsable
const POSITION_BIAS = 1.5;
const NOISE_SD = 1.2;

/** The hidden quality of an answer, 3..8, from its text. */
function quality(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return 3 + (5 * ((h >>> 0) % 1000)) / 1000;
}

const between = (s: string, a: string, b: string) => {
  const i = s.indexOf(a);
  const j = s.indexOf(b, i);
  return i < 0 || j < 0 ? '' : s.slice(i + a.length, j).trim();
};

const rng = seededRng(99);
/** The fake judge: evidence first, then both scores; noisy, favours Assistant 1, sometimes unparsable. */
function fakeJudge({ user }: { user: string }): string {
  const a1 = between(user, "[The Start of Assistant 1's Answer]", "[The End of Assistant 1's Answer]");
  const a2 = between(user, "[The Start of Assistant 2's Answer]", "[The End of Assistant 2's Answer]");
  if (user.includes(BROKEN) || rng() < 0.05)
    return 'Evaluation evidence: both answers are fine.\nScore of the Assistant 1: ten\nScore of the Assistant 2: nine';
  const clip = (x: number) => Math.max(1, Math.min(10, Math.round(x)));
  const s1 = clip(quality(a1) + POSITION_BIAS + NOISE_SD * normal(rng));
  const s2 = clip(quality(a2) + NOISE_SD * normal(rng));
  return `Evaluation evidence: Assistant 1 wrote ${a1.length} characters, Assistant 2 wrote ${a2.length}.\nScore of the Assistant 1: ${s1}\nScore of the Assistant 2: ${s2}`;
}

describe.skipIf(!MT)(
  'calibrated judging (MEC + BPC) and the review queue, against the local test server',
  () => {
    let srv: OpenAIServer;
    const dir = tmpDir('arena-calibrate-');
    const db = join(dir, 'arena.db');
    const judge = ['--judge', 'openai/judge', '--base-url', '', '--db', db];

    beforeAll(async () => {
      srv = await startOpenAIServer({ verdict: fakeJudge });
      judge[3] = srv.url;
      await arenaOk(['import', 'questions', '--db', db, join(MT!, 'question.jsonl')]);
      await arenaOk([
        'import',
        'answers',
        '--db',
        db,
        ...MODELS.map((m) => join(MT!, 'model_answer', `${m}.jsonl`)),
      ]);
    });
    afterAll(async () => {
      await srv?.close();
    });
    /** `arena calibrate` of MODELS on QUESTIONS, turn 1, with `--samples samples` and then `extra` */
    const calibrate = (samples: string, ...extra: string[]) => [
      'calibrate',
      ...judge,
      '--models',
      MODELS.join(','),
      '--questions',
      QUESTIONS.join(','),
      '--turns',
      '1',
      '--samples',
      samples,
      ...extra,
    ];

    it('plays 2 orders x k samples per match, counts unparsable samples, and makes a match with no valid sample an error', async () => {
      const r = await arenaJson<{
        run: { played: number; failed: number; planned: number };
        report: {
          matches: number;
          errors: number;
          unparsableSamples: number;
          validSamples: number;
          errorReasons: string[];
        };
      }>(calibrate('3', '--concurrency', '1', '--retries', '0'), { env: { OPENAI_API_KEY: 'test' } });
      const matches = QUESTIONS.length * 3;
      expect(r.run.planned).toBe(matches * 2 * 3);
      expect(r.run.played).toBe(matches * 2 * 3);
      expect(r.run.failed).toBe(0);
      expect(srv.completions()).toBe(matches * 2 * 3);
      expect(r.report.matches).toBe(matches);
      expect(r.report.errors).toBe(3); // question 81's three pairs
      expect(r.report.unparsableSamples).toBeGreaterThanOrEqual(3 * 6);
      expect(r.report.validSamples + r.report.unparsableSamples).toBe(matches * 6);
      expect(r.report.errorReasons[0]).toMatch(
        /question 81 .*no valid sample in order AB or BA \(6 unparsable of 6\)/,
      );
    });

    it('a rerun plays nothing; raising k plays only the new samples (the sample index is part of the game id)', async () => {
      const before = srv.completions();
      const again = await arenaJson<{ run: { played: number } }>(calibrate('3'), {
        env: { OPENAI_API_KEY: 'test' },
      });
      expect(again.run.played).toBe(0);
      expect(srv.completions()).toBe(before);
      const more = await arenaJson<{
        run: { played: number; planned: number };
        report: { validSamples: number; unparsableSamples: number };
      }>(calibrate('4', '--concurrency', '1'), { env: { OPENAI_API_KEY: 'test' } });
      const matches = QUESTIONS.length * 3;
      expect(more.run.planned).toBe(matches * 2 * 4);
      expect(more.run.played).toBe(matches * 2);
      expect(srv.completions()).toBe(before + matches * 2);
      expect(more.report.validSamples + more.report.unparsableSamples).toBe(matches * 8);
    });

    it('arena bias shows the judge favouring the answer shown first', async () => {
      const r = await arenaJson<{
        games: {
          pair: string;
          positionA: number;
          conflict: number;
          favoursFirst: number;
          favoursSecond: number;
        }[];
        byGap: { from: number; matches: number; conflict: number | null }[];
      }>(['bias', '--db', db, '--judge', 'openai/judge+fair', '--by', '']);
      expect(r.games).toHaveLength(1);
      // the orders conflict most when the two answers are close, least when far apart
      const used = r.byGap.filter((g) => g.matches > 0);
      // matches with a calibrated score and a parsable first sample in both orders
      expect(used.reduce((s, g) => s + g.matches, 0)).toBeLessThanOrEqual(QUESTIONS.length * 3 - 3);
      expect(used.reduce((s, g) => s + g.matches, 0)).toBeGreaterThan(QUESTIONS.length * 2);
      expect(used[0]!.conflict!).toBeGreaterThan(used.at(-1)!.conflict!);
      expect(r.games[0]!.positionA).toBeGreaterThan(0.6);
      expect(r.games[0]!.conflict).toBeGreaterThan(0.1);
      expect(r.games[0]!.favoursFirst).toBeGreaterThan(r.games[0]!.favoursSecond);
    });

    it('review: the top 20% by entropy (errors first) is exported, labelled, imported; accuracy and kappa improve step by step', async () => {
      // the "human" votes: the answer of higher hidden quality wins
      const answers = new Map<string, string>();
      for (const m of MODELS) {
        const { readFileSync } = await import('node:fs');
        for (const line of readFileSync(join(MT!, 'model_answer', `${m}.jsonl`), 'utf8')
          .split('\n')
          .filter(Boolean)) {
          const a = JSON.parse(line) as { question_id: number; choices: { turns: string[] }[] };
          answers.set(`${m}/${a.question_id}`, a.choices[0]!.turns[0]!);
        }
      }
      const truth = (q: number, m1: string, m2: string) =>
        quality(answers.get(`${m1}/${q}`)!.trim()) > quality(answers.get(`${m2}/${q}`)!.trim())
          ? 'model_1'
          : 'model_2';
      const votes: string[] = [];
      for (const q of QUESTIONS)
        for (let i = 0; i < MODELS.length; i++)
          for (let j = i + 1; j < MODELS.length; j++) {
            const w = truth(q, MODELS[i]!, MODELS[j]!);
            votes.push(
              JSON.stringify({
                question_id: q,
                turn: 1,
                model_a: MODELS[i],
                model_b: MODELS[j],
                winner: w === 'model_1' ? 'model_a' : 'model_b',
                judge: 'expert_sim',
              }),
            );
          }
      const votesFile = join(dir, 'human.jsonl');
      writeFileSync(votesFile, `${votes.join('\n')}\n`);
      await arenaOk(['import', 'votes', '--db', db, votesFile]);

      const list = await arenaJson<{ questionId: number; entropy: number; verdict: string }[]>([
        'review',
        'list',
        '--db',
        db,
        '--judge',
        'openai/judge',
      ]);
      expect(list).toHaveLength(Math.ceil(0.2 * QUESTIONS.length * 3));
      expect(list.slice(0, 3).every((r) => r.questionId === 81 && r.verdict === 'error')).toBe(true);
      for (let k = 4; k < list.length; k++)
        expect(list[k]!.entropy).toBeLessThanOrEqual(list[k - 1]!.entropy);

      const exported = join(dir, 'queue.jsonl');
      await arenaOk(['review', 'export', '--db', db, '--judge', 'openai/judge', '--out', exported]);
      const { readFileSync } = await import('node:fs');
      const lines = readFileSync(exported, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(list.length);
      expect(lines[0]).toMatchObject({ questionId: 81, label: null });
      expect((lines[0]!.answer1 as string[])[0]).toBe(answers.get(`${lines[0]!.model1}/81`));
      // the annotator labels all but the last line, which stays null
      const labelled = lines.map((l, k) =>
        JSON.stringify({
          ...l,
          label:
            k === lines.length - 1
              ? null
              : truth(l.questionId as number, l.model1 as string, l.model2 as string),
        }),
      );
      writeFileSync(exported, `${labelled.join('\n')}\n`);
      expect(await arenaOk(['review', 'import', '--db', db, exported])).toMatch(
        new RegExp(`imported ${lines.length - 1} labels .*\\(1 lines still without a label\\)`),
      );

      const rep = await arenaJson<{
        reviewed: number;
        rows: { variant: string; n: number; accuracy: number; kappa: number }[];
      }>(['review', 'report', '--db', db, '--judge', 'openai/judge']);
      expect(rep.reviewed).toBe(lines.length - 1);
      const [first, mec, reviewed] = rep.rows;
      console.log(
        rep.rows
          .map(
            (r) =>
              `${r.variant}: accuracy ${(100 * r.accuracy).toFixed(1)}%, kappa ${r.kappa.toFixed(3)} (n=${r.n})`,
          )
          .join('\n'),
      );
      expect(first!.n).toBe(QUESTIONS.length * 3);
      expect(mec!.accuracy).toBeGreaterThan(first!.accuracy);
      expect(reviewed!.accuracy).toBeGreaterThan(mec!.accuracy);
      expect(reviewed!.kappa).toBeGreaterThan(mec!.kappa);
    });

    it('a malformed label names the file, the line and the field', async () => {
      const bad = join(dir, 'bad.jsonl');
      writeFileSync(
        bad,
        `${JSON.stringify({ questionId: 82, turn: 1, model1: 'gpt-4', model2: 'llama-13b', label: null })}\n${JSON.stringify({ questionId: 82, turn: 1, model1: 'gpt-4', model2: 'llama-13b', label: 'A' })}\n`,
      );
      const r = await runArena(['review', 'import', '--db', db, bad]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `${bad}:2: field "label": expected "model_1", "model_2", "tie" or null, got "A"`,
      );
    });
  },
);
