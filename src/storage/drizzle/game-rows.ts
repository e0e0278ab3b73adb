// A game as the Store hands it out, and as a row of the games table.
import { gameVerdictOf } from '../../core/verdict/stored.ts';
import type { Game } from '../../core/types.ts';
import type { GameFacts } from '../store.ts';
import type * as t from '../../../db/schema.ts';
import type { GameRow } from './shared.ts';

/** A games row as drizzle reads it, and without its text columns (games.facts). */
export type SelectedRow = typeof t.games.$inferSelect;
export type FactsRow = Omit<SelectedRow, 'systemPrompt' | 'userPrompt' | 'reply'>;

export function toGame(r: SelectedRow): Game {
  // the keys in the order a game has always had (printed games keep it)
  const { id, runId, judge, judgeSettings, promptName, match, order, ...rest } = toFacts(r);
  const text = { systemPrompt: r.systemPrompt, userPrompt: r.userPrompt, reply: r.reply };
  return { id, runId, judge, judgeSettings, promptName, match, order, ...text, ...rest };
}

export function toFacts(r: FactsRow): GameFacts {
  return {
    id: r.id,
    runId: r.runId,
    judge: r.judge,
    judgeSettings: r.judgeSettings,
    promptName: r.promptName,
    match: {
      questionId: r.questionId,
      category: r.category,
      turn: r.turn,
      model1: r.model1,
      ...(r.model2 !== null ? { model2: r.model2 } : {}),
    },
    order: r.order,
    verdict: gameVerdictOf(r.verdict, r.model2 !== null, `game ${r.id}`),
    parser: r.parser,
    tokensIn: r.tokensIn,
    tokensOut: r.tokensOut,
    ...(r.tokensCached !== null ? { tokensCached: r.tokensCached } : {}),
    ...(r.tokensReasoning !== null ? { tokensReasoning: r.tokensReasoning } : {}),
    latencyMs: r.latencyMs,
    createdAt: r.createdAt,
    source: r.source,
    ...(r.cost !== null ? { cost: r.cost } : {}),
    ...(r.verdictProbs !== null ? { verdictProbs: r.verdictProbs } : {}),
    ...(r.entropy !== null ? { entropy: r.entropy } : {}),
    ...(r.reliability !== null ? { reliability: r.reliability } : {}),
    ...(r.recordedVerdict !== null
      ? { recordedVerdict: gameVerdictOf(r.recordedVerdict, r.model2 !== null, `game ${r.id}`) }
      : {}),
  };
}

/** The nullable columns, NULL where a game has no value (a value left undefined is NULL too). */
const NULLS = {
  runId: null,
  model2: null,
  tokensIn: null,
  tokensOut: null,
  tokensCached: null,
  tokensReasoning: null,
  latencyMs: null,
  cost: null,
  verdictProbs: null,
  entropy: null,
  reliability: null,
  recordedVerdict: null,
};

export function gameRow({ match, ...g }: Game): GameRow {
  const { questionId, category, turn, model1, model2 } = match;
  return { ...NULLS, ...g, questionId, category, turn, model1, model2: model2 ?? null };
}
