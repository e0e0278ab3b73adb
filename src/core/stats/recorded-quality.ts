// Judgment-quality rows for a judge known only by its recorded match outcomes (e.g. the HF gpt4_pair
// split: one combined verdict per match, "tie (inconsistent)" kept as inconsistent). Pure.
import type { QualityRow } from './judge-quality.ts';
import type { MatchOutcome } from '../types.ts';

/** Per turn, and over all turns (turn 0) when there are several: games 0, each outcome one match. */
export function qualityRowsFromOutcomes(judge: string, outcomes: MatchOutcome[]): QualityRow[] {
  const turns = [...new Set(outcomes.map((o) => o.turn))].sort((a, b) => a - b);
  const row = (turn: number, os: MatchOutcome[]): QualityRow => {
    const r: QualityRow = {
      judge,
      turn,
      games: 0,
      matches: os.length,
      errorsOneGame: 0,
      errorsBothGames: 0,
      emptyReplies: 0,
      consistent: 0,
      inconsistent: 0,
      ties: 0,
      meanConfidence: null,
      meanEntropy: null,
    };
    for (const o of os) {
      if (o.outcome === 'error') r.errorsBothGames++;
      else if (o.outcome === 'inconsistent') r.inconsistent++;
      else {
        r.consistent++;
        if (o.outcome === 'tie') r.ties++;
      }
    }
    return r;
  };
  const rows = turns.map((t) =>
    row(
      t,
      outcomes.filter((o) => o.turn === t),
    ),
  );
  if (turns.length > 1) rows.push(row(0, outcomes));
  return rows;
}
