// The vocabulary of mt-arena (docs/tournaments.md, "Vocabulary"). Pure types, no I/O.

export interface Question {
  id: number;
  category: string;
  /** the user turns, in order */
  turns: string[];
  /** reference answers shipped inside the question (question.jsonl `reference`) */
  reference?: string[];
  /** the labelled pair set the item belongs to (arena import pairs); such items are never tournament questions */
  set?: string;
}

/** One model's replies to every turn of one question. */
export interface Answer {
  model: string;
  questionId: number;
  turns: string[];
  answerId?: string;
}

/** Reference answers for a question from a named source (FastChat: reference_answer/<judge-model>.jsonl). */
export interface ReferenceAnswer {
  source: string;
  questionId: number;
  turns: string[];
}

export type PromptType = 'pairwise' | 'single';

/** A judge prompt scheme in FastChat's judge_prompts.jsonl shape. */
export interface PromptScheme {
  name: string;
  type: PromptType;
  systemPrompt: string;
  promptTemplate: string;
  /** `[[A]]` for pairwise, `[[rating]]` for single */
  outputFormat: string;
  category?: string;
  description?: string;
}

export type Mode = 'pairwise-all' | 'pairwise-baseline' | 'single';
export type Order = 'AB' | 'BA';

/**
 * The two sides of a match (MatchSpec model1, model2): the one spelling used inside (files' own: core/sides.ts).
 * Where a side was *shown* in one game is a position, 'A' or 'B' (PositionVerdict).
 */
type Side = 'model_1' | 'model_2';
/** What one pairwise game says in terms of positions: the answer shown first (A) or second (B). */
export type PositionVerdict = 'A' | 'B' | 'tie' | 'error';
/** What one pairwise game says, mapped back to the match's models. */
export type Verdict = Side | 'tie' | 'error';
/** A single-grading game's score as stored: the number's text (`String(7.5)`: '7.5', '10'). */
export type ScoreText = `${number}`;
/**
 * What a stored game says (Game.verdict): a pairwise game's Verdict, or a single-grading game's score as text
 * (`error`: neither), as its match says; core/verdict/stored.ts checks it where it enters and reads it back.
 */
export type GameVerdict = Verdict | ScoreText;
/** Two games of a match combined. `inconsistent` counts as a tie everywhere. */
export type Outcome = Side | 'tie' | 'inconsistent' | 'error';
/** A recorded vote's winner: a side, a tie, or two disagreeing orders. */
export type VoteWinner = Side | 'tie' | 'inconsistent';

/** (question, turn, model_1, model_2) — model_2 is absent in single grading. */
export interface MatchSpec {
  questionId: number;
  category: string;
  turn: number;
  model1: string;
  model2?: string;
}

/** A game to be played: the match, the order, and the exact messages. */
export interface GameSpec {
  match: MatchSpec;
  /** AB: model_1 shown as A; BA: model_2 shown as A; single grading uses 'AB' */
  order: Order;
  promptName: string;
  systemPrompt: string;
  userPrompt: string;
}

/** A stored, played game (a fact). */
export interface Game extends GameSpec {
  id: string;
  judge: string;
  judgeSettings: JudgeSettings;
  reply: string;
  /** pairwise: a Verdict; single: the score as text, or 'error'. Read it with core/verdict/stored.ts. */
  verdict: GameVerdict;
  parser: string;
  tokensIn?: number | null;
  tokensOut?: number | null;
  /** of tokensIn, read from the server's prompt cache (billed at the cached rate) */
  tokensCached?: number | null;
  /** of tokensOut, hidden reasoning tokens (billed as output) */
  tokensReasoning?: number | null;
  latencyMs?: number | null;
  createdAt: number;
  runId?: string | null;
  source: string;
  /** USD, from the judge's price table; null when unknown */
  cost?: number | null;
  /** positional verdict probabilities {A, B, C} summing to 1 (judges that expose token probabilities) */
  verdictProbs?: Record<string, number> | null;
  /** entropy of verdictProbs in bits */
  entropy?: number | null;
  /** SoftEnt-Cali in nats, lower = more reliable (local judges asked for it: src/judges/llama-cpp/reliability.ts) */
  reliability?: number | null;
  /** the verdict an imported judgment file recorded, kept beside `verdict` when a reparse replaces it */
  recordedVerdict?: GameVerdict | null;
}

export interface JudgeSettings {
  /** null: none sent, the model's default (reasoning models) */
  temperature: number | null;
  maxTokens: number;
  [key: string]: unknown;
}

/** A pairwise match's keys (MatchSpec with its model_2): what votes, games and outcomes on a match share. */
export interface MatchItem {
  questionId: number;
  turn: number;
  model1: string;
  model2: string;
}

/** One recorded pairwise outcome on an item: a human vote, or a judge's combined verdict. */
export interface Vote extends MatchItem {
  judge: string; // HUMAN, AUTHOR, REFERENCE_JUDGE (core/constants.ts), ...
  voter: string; // 'expert_12', 'gpt4_pair', ...
  winner: VoteWinner;
}

/**
 * One game of a pairwise match (the match's keys, the order shown, the verdict): what outcomes, weighting, bias
 * and the judge board read. A game on a labelled pair set is a LabelledGame (stats/pair-accuracy.ts).
 */
export interface MatchGame extends MatchItem {
  order: Order;
  verdict: Verdict;
}

/** A match outcome as standings, agreement and ratings consume it. */
export interface MatchOutcome extends MatchItem {
  outcome: Outcome;
}

export interface SingleScore {
  questionId: number;
  turn: number;
  model: string;
  /** null when the judge's reply did not parse */
  score: number | null;
}

export interface Standing {
  model: string;
  win: number;
  loss: number;
  tie: number;
  error: number;
  /** of the ties, how many came from two disagreeing orders */
  inconsistent: number;
  winRate: number;
  lossRate: number;
  winRateAdjusted: number;
}

export interface SingleStanding {
  model: string;
  turn1: number | null;
  turn2: number | null;
  score: number | null;
  n: number;
  error: number;
}

/** An error from a known place, e.g. `questions.jsonl:12: field "turns": expected an array`. */
export class ArenaError extends Error {
  constructor(
    message: string,
    readonly where?: { file?: string; line?: number; field?: string },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ArenaError';
  }
}
