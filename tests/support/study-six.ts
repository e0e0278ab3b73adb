// The study's recorded matches (6 models, 80 questions × 2 turns) as the scheduler sees them: each match's outcome
// by the engine's rule (an error in either order: no battle; orders disagreeing: a tie).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ClusteredBattle } from '../../src/core/stats/battle-table.ts';
import type { SettleMatch } from '../../src/core/stats/settle.ts';
import { STUDY_JUDGMENTS } from '../../src/importers/judge-llama2.ts';

export function studySix(dir: string) {
  const rows = gunzipSync(readFileSync(join(dir, STUDY_JUDGMENTS)))
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string | number>);
  const v = (w: unknown) => (w === 'model_1' ? 1 : w === 'model_2' ? 0 : w === 'tie' ? 0.5 : -1);
  const matches: SettleMatch[] = [];
  const outcome = new Map<string, ClusteredBattle | undefined>();
  for (const r of rows) {
    const [a, b, q] = [String(r.model_1), String(r.model_2), Number(r.question_id)];
    const key = `${q}:${r.turn}:${a}:${b}`;
    matches.push({ key, a, b, cluster: q });
    const [g1, g2] = [v(r.g1_winner), v(r.g2_winner)];
    outcome.set(
      key,
      g1 < 0 || g2 < 0 ? undefined : { a, b, score: (g1 === g2 ? g1 : 0.5) as 0 | 0.5 | 1, cluster: q },
    );
  }
  const models = [...new Set(matches.flatMap((m) => [m.a, m.b]))].sort();
  const battles = (keys: Iterable<string>) =>
    [...keys].map((k) => outcome.get(k)).filter((b): b is ClusteredBattle => !!b);
  return { matches, models, battles };
}

/**
 * The study's 4,800 recorded replies by the user prompt each answered (the prompt its row records, `g1_user_prompt`
 * / `g2_user_prompt`): a test server answering a prompt with its reply is the study's Llama-2-70B judge replayed.
 */
export function studyReplies(dir: string): Map<string, string> {
  const replies = new Map<string, string>();
  for (const line of gunzipSync(readFileSync(join(dir, STUDY_JUDGMENTS)))
    .toString()
    .split('\n')) {
    if (!line) continue;
    const r = JSON.parse(line) as Record<string, string>;
    for (const g of ['g1', 'g2']) replies.set(r[`${g}_user_prompt`]!, r[`${g}_judgment`]!);
  }
  return replies;
}
