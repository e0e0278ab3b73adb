// The shared materials the tests read where they lie (never copied into the project), and why a test file
// skips when one is missing: MTBENCH_DIR (the MT-Bench release), JUDGE_LLAMA2_DIR, JUDGE_SETS_DIR.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const MTBENCH_DIR = process.env.MTBENCH_DIR;
export const JUDGE_LLAMA2_DIR = process.env.JUDGE_LLAMA2_DIR;

/** The skip reason when MTBENCH_DIR is unset (`forWhat`: what the file needs the release for); else undefined. */
export function noMtbench(forWhat: string): string | undefined {
  return MTBENCH_DIR ? undefined : `MTBENCH_DIR is not set: set it to ../shared/mt_bench (${forWhat})`;
}

/** The skip reason when MTBENCH_DIR or JUDGE_LLAMA2_DIR is unset; else undefined. */
export function noMtbenchOrJudgeLlama2(): string | undefined {
  return MTBENCH_DIR && JUDGE_LLAMA2_DIR
    ? undefined
    : 'MTBENCH_DIR and JUDGE_LLAMA2_DIR must be set (../shared/mt_bench, ../shared/judge_llama2)';
}

/** The first reason given, warned once as `[tag] skipped: …`; '' when none, for `describe.skipIf`. */
export function skipWhy(tag: string, ...reasons: (string | undefined)[]): string {
  const reason = reasons.find((r) => !!r) ?? '';
  if (reason) console.warn(`[${tag}] skipped: ${reason}`);
  return reason;
}

/** The rows of one of the release's CSV files (e.g. human_judgments/*.csv), by column name. No quoted fields occur. */
export function readCsv(file: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(file, 'utf8').split(/\r?\n/).filter(Boolean);
  const names = header!.split(',');
  return lines.map(
    (l) => Object.fromEntries(l.split(',').map((v, k) => [names[k]!, v])) as Record<string, string>,
  );
}

/** A vote's `winner` column as the score of model_a: 1, 0, or 0.5 for a tie. */
export const scoreOfA = (r: Record<string, string>): number =>
  r.winner === 'model_a' ? 1 : r.winner === 'model_b' ? 0 : 0.5;

/** The six models of the MT-Bench release's answers and votes, by name. */
export const MTBENCH_MODELS = [
  'alpaca-13b',
  'claude-v1',
  'gpt-3.5-turbo',
  'gpt-4',
  'llama-13b',
  'vicuna-13b-v1.2',
];

/** The six models as GPT-4 ranks them, by win rate and by rating (FastChat's published tables). */
export const MTBENCH_GPT4_ORDER = [
  'gpt-4',
  'claude-v1',
  'gpt-3.5-turbo',
  'vicuna-13b-v1.2',
  'alpaca-13b',
  'llama-13b',
];

/** Each answer turn's length, keyed `model/questionId`, from `<dir>/model_answer/<model>.jsonl`. */
export function answerLengths(dir: string, models: readonly string[]): Map<string, number[]> {
  const len = new Map<string, number[]>();
  for (const m of models)
    for (const l of readFileSync(join(dir, 'model_answer', `${m}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)) {
      const a = JSON.parse(l) as { question_id: number; choices: { turns: string[] }[] };
      len.set(
        `${m}/${a.question_id}`,
        a.choices[0]!.turns.map((t) => t.length),
      );
    }
  return len;
}
