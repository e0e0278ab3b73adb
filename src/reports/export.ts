import { pairVerdict, ratingOf } from '../core/verdict/stored.ts';
import type { Game } from '../core/types.ts';
import type { Store } from '../storage/store.ts';

/**
 * Games in FastChat's model_judgment shapes: `<judge>_pair.jsonl` (one line per match with both games, fields in
 * play_a_match_pair's order) and `<judge>_single.jsonl`, named after the judge model (the part after "provider/").
 */
export async function exportFastchat(
  store: Store,
  judge: string,
): Promise<{ name: string; lines: string[] }[]> {
  const games = await store.games.list({ judge });
  const model = judge.includes('/') ? judge.slice(judge.indexOf('/') + 1) : judge;
  const pair: string[] = [];
  const single: string[] = [];
  const matches = new Map<string, { ab?: Game; ba?: Game }>();
  for (const g of games) {
    if (g.match.model2 === undefined) {
      single.push(
        JSON.stringify({
          question_id: g.match.questionId,
          model: g.match.model1,
          judge: [model, g.promptName],
          user_prompt: g.userPrompt,
          judgment: g.reply,
          score: ratingOf(g.verdict) ?? -1,
          turn: g.match.turn,
          tstamp: g.createdAt / 1000,
        }),
      );
      continue;
    }
    const key = `${g.match.questionId}\u0000${g.match.turn}\u0000${g.match.model1}\u0000${g.match.model2}\u0000${g.promptName}`;
    const m = matches.get(key) ?? {};
    if (g.order === 'AB') m.ab = g;
    else m.ba = g;
    matches.set(key, m);
  }
  for (const { ab, ba } of matches.values()) {
    if (!ab || !ba) continue;
    pair.push(
      JSON.stringify({
        question_id: ab.match.questionId,
        model_1: ab.match.model1,
        model_2: ab.match.model2,
        g1_winner: pairVerdict(ab.verdict),
        g2_winner: pairVerdict(ba.verdict),
        judge: [model, ab.promptName],
        g1_user_prompt: ab.userPrompt,
        g1_judgment: ab.reply,
        g2_user_prompt: ba.userPrompt,
        g2_judgment: ba.reply,
        turn: ab.match.turn,
        tstamp: Math.max(ab.createdAt, ba.createdAt) / 1000,
      }),
    );
  }
  const out: { name: string; lines: string[] }[] = [];
  const file = exportFileStem(model);
  if (pair.length) out.push({ name: `${file}_pair.jsonl`, lines: pair });
  if (single.length) out.push({ name: `${file}_single.jsonl`, lines: single });
  return out;
}

/** A judge's name as one file name: no path separators (a local judge id may hold a path), nothing shells mind. */
function exportFileStem(model: string): string {
  return (
    model
      .replace(/[^A-Za-z0-9._@+-]+/g, '_')
      .replace(/^[_.]+/, '')
      .slice(0, 120) || 'judge'
  );
}
