// A game as the Store hands it out, and as a row of the games table.
import { gameVerdictOf } from '../../core/verdict/stored.ts';
import type { Game } from '../../core/types.ts';
import type * as t from '../../../db/schema.ts';
import type { GameRow } from './shared.ts';

export function toGame(r: typeof t.games.$inferSelect): Game {
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
    systemPrompt: r.systemPrompt,
    userPrompt: r.userPrompt,
    reply: r.reply,
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

export function gameRow(g: Game): GameRow {
  return {
    id: g.id,
    runId: g.runId ?? null,
    judge: g.judge,
    judgeSettings: g.judgeSettings,
    promptName: g.promptName,
    questionId: g.match.questionId,
    category: g.match.category,
    turn: g.match.turn,
    model1: g.match.model1,
    model2: g.match.model2 ?? null,
    order: g.order,
    systemPrompt: g.systemPrompt,
    userPrompt: g.userPrompt,
    reply: g.reply,
    verdict: g.verdict,
    parser: g.parser,
    tokensIn: g.tokensIn ?? null,
    tokensOut: g.tokensOut ?? null,
    tokensCached: g.tokensCached ?? null,
    tokensReasoning: g.tokensReasoning ?? null,
    latencyMs: g.latencyMs ?? null,
    createdAt: g.createdAt,
    source: g.source,
    cost: g.cost ?? null,
    verdictProbs: g.verdictProbs ?? null,
    entropy: g.entropy ?? null,
    reliability: g.reliability ?? null,
    recordedVerdict: g.recordedVerdict ?? null,
  };
}
