// The cost ledger's group of the Store: what judges, runs and games spent, read from the stored games and runs.
import type { GameVerdictRow } from './store.ts';

/** Spending of one judge (the cost ledger). */
export interface JudgeCost {
  judge: string;
  games: number;
  tokensIn: number;
  tokensOut: number;
  /** of tokensIn, read from the prompt cache (billed at the cached rate) */
  tokensCached: number;
  /** of tokensOut, hidden reasoning tokens (billed as output) */
  tokensReasoning: number;
  /** USD; null when no game of the judge has a known cost */
  cost: number | null;
}

/** A run with what it spent (the cost ledger). */
export interface RunCost {
  id: string;
  startedAt: number;
  judge: string;
  mode: string;
  played: number;
  failed: number;
  tokensIn: number;
  tokensOut: number;
  cost: number | null;
  status: string;
}

/** A game with what it cost (the cost ledger). */
export interface GameCost extends Omit<GameVerdictRow, 'verdict'> {
  runId: string | null;
  judge: string;
  tokensIn: number | null;
  tokensOut: number | null;
  tokensCached: number | null;
  tokensReasoning: number | null;
  cost: number | null;
}

/** A judge's stored games with token counts, summed (token calibration of cost estimates). */
export interface TokenTotals {
  games: number;
  /** characters of system and user prompts */
  chars: number;
  tokensIn: number;
  tokensOut: number;
}

/** The cost ledger: what judges, runs and games spent. */
export interface LedgerStore {
  /** spending per judge, over all games or those of some runs; ordered by judge */
  byJudge(runIds?: string[]): Promise<JudgeCost[]>;
  /** runs with their cost, newest first */
  byRun(limit?: number): Promise<RunCost[]>;
  /** the most recent games with their cost, newest first */
  byGame(limit?: number): Promise<GameCost[]>;
  /** what these games cost, those of them stored (a Batch API job's games): USD null when none has a known cost */
  ofGames(ids: string[]): Promise<{ games: number; cost: number | null }>;
  /** a judge's stored games that have both token counts, summed */
  tokenTotals(judge: string): Promise<TokenTotals>;
}
