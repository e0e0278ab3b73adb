// The MT-Bench games the real model judges (real-*.test.ts): the release's shortest turn-1 question without a
// reference, alpaca-13b vs llama-13b in both orders, greedy, a short reply, played once per run. Each prompt costs
// about 3 s of CPU per evaluation, so one question, both orders, not more.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { arenaOk } from '../../support/cli.ts';
import { MTBENCH_DIR } from '../../support/materials.ts';
import { REAL_GGUF } from '../../support/real-model.ts';
import { runShared } from '../../support/run-shared.ts';

const IDS = [98];
const MODELS = ['alpaca-13b', 'llama-13b'];
const MAX_TOKENS = 64;

export const REAL_GAMES = {
  count: IDS.length * 2,
  maxTokens: MAX_TOKENS,
  /** the llama-cpp judge's options: one thread, one sequence, no prefix reuse (the reference evaluates each game's
   * prompt in one batch, as the judge then does) */
  options: 'threads=1&ctx=2048&sequences=1&reuse=off',
  /** `arena run`'s arguments besides --db, --judge and the files (realGamesSetup) */
  args: realGamesArgs(MAX_TOKENS),
};

/** `arena run`'s arguments for these games besides --db, --judge and the files, replies of `maxTokens`. */
export function realGamesArgs(maxTokens: number): string[] {
  return ['--models', MODELS.join(','), '--turn', '1', '--max-tokens', String(maxTokens)];
}

/**
 * The games' question and answers from MTBENCH_DIR as `--questions --answers` files in `dir` (`args`), and a database
 * there with the release's judge prompts: the release's games without its thousands of others to report on.
 * `terse`: each answer cut to its first sentence and each judge system prompt to its last (the verdict's format),
 * about 190 tokens a game's prompt, not 347, for a claim that holds whatever the prompt says and pays for each token.
 */
export async function realGamesSetup(dir: string, terse = false): Promise<{ db: string; args: string[] }> {
  const release = MTBENCH_DIR!;
  const only = (file: string) => {
    const lines = readFileSync(join(release, file), 'utf8').split('\n');
    const kept = lines.filter(
      (l) => l && IDS.includes((JSON.parse(l) as { question_id: number }).question_id),
    );
    if (kept.length !== IDS.length) throw new Error(`${release}/${file} lacks some of ${IDS.join(', ')}`);
    return kept.map((l) => (terse ? shorten(l) : l)).join('\n') + '\n';
  };
  const questions = join(dir, 'question.jsonl');
  writeFileSync(questions, only('question.jsonl'));
  const answers = join(dir, 'model_answer');
  mkdirSync(answers, { recursive: true });
  for (const m of MODELS) writeFileSync(join(answers, `${m}.jsonl`), only(`model_answer/${m}.jsonl`));
  const db = join(dir, 'arena.db');
  let prompts = join(release, 'judge_prompts.jsonl');
  if (terse) {
    const text = readFileSync(prompts, 'utf8').split('\n').filter(Boolean).map(shorten);
    writeFileSync((prompts = join(dir, 'judge_prompts.jsonl')), text.join('\n') + '\n');
  }
  await arenaOk(['import', 'prompts', prompts, '--db', db]);
  return { db, args: ['--questions', questions, '--answers', answers] };
}

/** The JSON line `line` of an answer or judge prompt made terse (realGamesSetup); a question's passes unchanged. */
function shorten(line: string): string {
  const sentences = (t: string) => t.split(/(?<=[.!?]) /);
  const o = JSON.parse(line) as { choices?: { turns: string[] }[]; system_prompt?: string };
  for (const c of o.choices ?? []) c.turns = c.turns.map((t) => sentences(t)[0]!);
  if (o.system_prompt) o.system_prompt = sentences(o.system_prompt).at(-1)!;
  return JSON.stringify(o);
}

/**
 * The in-process judge's games (`arena run --judge llama-cpp/<REAL_GGUF>`), played once per `vitest run` for the
 * files comparing them with llama-cpp-python: the database holding them (copy it before writing).
 */
export async function realModelGames(): Promise<{ db: string }> {
  const dir = await runShared(
    'real-model-games',
    async (scratch) => {
      const { db, args } = await realGamesSetup(scratch);
      await arenaOk(
        ['run', '--db', db, '--judge', `llama-cpp/${REAL_GGUF}?${REAL_GAMES.options}`].concat(
          args,
          REAL_GAMES.args,
        ),
        { timeoutMs: 300_000 },
      );
    },
    600_000,
  );
  return { db: join(dir, 'arena.db') };
}

export interface StoredGame {
  judge: string;
  questionId: number;
  order: 'AB' | 'BA';
  system: string;
  user: string;
  reply: string;
  verdict: string;
  tokensIn: number;
  probs: Record<string, number>;
  /** SoftEnt-Cali, when the judge computed it */
  reliability: number | null;
}

/** The games of the judges whose id starts with `judgePrefix`, by question and order. */
export function storedGames(db: string, judgePrefix: string): StoredGame[] {
  const d = new Database(db, { readonly: true });
  try {
    const rows = d
      .prepare(
        `SELECT judge, question_id, "order", system_prompt, user_prompt, reply, verdict, tokens_in, verdict_probs,
                reliability
           FROM games WHERE judge LIKE ? || '%' AND source = 'run' ORDER BY question_id, "order"`,
      )
      .all(judgePrefix) as Record<string, unknown>[];
    return rows.map((r) => ({
      judge: r.judge as string,
      questionId: r.question_id as number,
      order: r.order as 'AB' | 'BA',
      system: r.system_prompt as string,
      user: r.user_prompt as string,
      reply: r.reply as string,
      verdict: r.verdict as string,
      tokensIn: r.tokens_in as number,
      probs: r.verdict_probs ? (JSON.parse(r.verdict_probs as string) as Record<string, number>) : {},
      reliability: r.reliability as number | null,
    }));
  } finally {
    d.close();
  }
}
