// mt-arena as a library: the stable API for programs that use the engine without the `arena` command.
// Everything here keeps its name and meaning between releases; anything imported from a deeper path is
// internal and may move. The layers below are described in docs/architecture.md.

// the vocabulary: questions, answers, matches, games, verdicts, outcomes, standings
export {
  ArenaError,
  type Answer,
  type Game,
  type GameSpec,
  type GameVerdict,
  type JudgeSettings,
  type MatchOutcome,
  type MatchSpec,
  type Mode,
  type Order,
  type Outcome,
  type MatchGame,
  type PositionVerdict,
  type PromptScheme,
  type Question,
  type ReferenceAnswer,
  type ScoreText,
  type SingleScore,
  type SingleStanding,
  type Standing,
  type Verdict,
  type Vote,
} from './core/types.ts';
export { DEFAULT_BASELINE, HUMAN } from './core/constants.ts';

// plans and game ids (a game is identified by its content: a stored game is never paid for twice)
export { gameId, gameIdentity, planGames, type PlanInput } from './core/plan.ts';
export { PROMPT_SETS, renderPrompt, type PromptSet } from './core/prompts.ts';

// verdicts: parsing a judge's reply, and the verdict a game stores
export {
  PARSER_VERSIONS,
  gameVerdictOf,
  pairVerdict,
  parseGameVerdict,
  parseLenientPair,
  parsePairVerdict,
  parseRating,
  parserFor,
  ratingOf,
  toVerdict,
  verdictOf,
  type ParserMode,
  type ReadVerdict,
  type ReplyParser,
} from './core/verdict/index.ts';
export { combineGames, outcomesFromGames, scoreOf, storedVerdictOf } from './core/outcomes.ts';

// standings and ratings
export {
  pairwiseStandings,
  singleStandings,
  tallyStandings,
  type StandingsOptions,
} from './core/standings.ts';
export {
  battlesFromOutcomes,
  battlesFromVotes,
  bradleyTerry,
  onlineElo,
  type Battle,
  type Rating,
} from './core/ratings.ts';
export { battleTable, type ClusteredBattle } from './core/stats/battle-table.ts';
export { bootstrapBradleyTerry } from './core/stats/rating-bootstrap.ts';
export type { BootstrapRatings, RatingWithInterval } from './core/stats/rating-rows.ts';

// storage: the Store contract, and the SQLite store that implements it on Node
export type { Store } from './storage/store.ts';
export { openMemoryStore, openSqliteStore, type SqliteStore } from './storage/sqlite.ts';

// judges: the provider contract and the one set-up (key check, retries, timeouts, auth stop)
export type { JudgeProvider, JudgeReply, JudgeRequest } from './judges/judge.ts';
export { JudgeSetup, createJudge, openJudge, type OpenJudgeOptions } from './judges/registry.ts';

// playing: the tournament (plan + play) and the one play loop under it
export { runTournament, type RunOptions, type RunSummary } from './engine/run.ts';
export { playGames, type PlayOptions } from './engine/play/index.ts';

// importers: the file formats' pure parsers (errors name the file and line) and imports into a Store
export {
  parseAnswers,
  parseJsonl,
  parsePrompts,
  parseQuestions,
  parseVotes,
  type Located,
} from './importers/formats.ts';
export { importFiles, type ImportSources } from './importers/import.ts';
// the shipped judge prompts a run needs, imported into a Store before it plays (planning only reads the store)
export { ensureRunPrompts } from './importers/builtin.ts';
