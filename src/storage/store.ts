import type {
  Answer,
  Game,
  GameVerdict,
  PromptScheme,
  Question,
  ReferenceAnswer,
  Vote,
} from '../core/types.ts';
import type { CheckpointRecord, RefreshRecord } from '../core/records.ts';
import type { AnnotatorStore, RateLimitStore } from './annotator-store.ts';
import type { LedgerStore } from './ledger-store.ts';
import type { PageStore } from './page-store.ts';
import type { ReportStore } from './report-store.ts';

export type {
  CheckpointGeneration,
  CheckpointRecord,
  RefreshRecord,
  RefreshStatus,
} from '../core/records.ts';

/** Everything one import writes, applied atomically: all of it or none of it. */
export interface ImportBundle {
  questions?: { source: string; items: Question[] };
  references?: ReferenceAnswer[];
  answers?: { source: string; items: Answer[] }[];
  prompts?: PromptScheme[];
  games?: Game[];
  /** votes per source file; importing a source again replaces its votes */
  votes?: { source: string; items: (Vote & { line: number })[] }[];
}

export interface ImportCounts {
  questions: number;
  references: number;
  answers: number;
  prompts: number;
  games: number;
  votes: number;
}

export interface GameFilter {
  judge?: string;
  /** pairwise games only (model_2 set) or single only */
  kind?: 'pairwise' | 'single';
  questionId?: number;
  models?: [string, string];
  /** only games with this source; without it, drift-canary re-judgments ('canary') never count as results */
  source?: string;
  /** only games on this labelled pair set's items; without it (or `withSets`) they are left out */
  set?: string;
  /** keep games on labelled-set items beside the tournament's (reparse, exports) */
  withSets?: boolean;
}

/** A labelled pair set (arena import pairs) and the judges that have games on it. */
export interface PairSetSummary {
  set: string;
  items: number;
  judges: { judge: string; games: number }[];
}

export interface RunRecord {
  id: string;
  startedAt: number;
  finishedAt?: number | null;
  judge: string;
  mode: string;
  /** the run's options (stored as JSON) */
  config: Record<string, unknown>;
  planned: number;
  toPlay: number;
  played: number;
  failed: number;
  tokensIn: number;
  tokensOut: number;
  status: 'running' | 'done' | 'interrupted' | 'failed' | 'budget';
  /** USD spent by the run's games (null: no price known) */
  cost?: number | null;
  /** "host:pid" of the process that played it */
  owner?: string | null;
  /** when its process last wrote progress (ms); a running run with a stale heartbeat is dead */
  heartbeatAt?: number | null;
}

/** An OpenAI Batch API job (src/ops/batch.ts), saved as `submitting` under a local id before the upload. */
export interface BatchRecord {
  id: string;
  refreshId: string | null;
  judge: string;
  inputFileId: string;
  /** submitting | submitted | imported | failed | expired | cancelled | output-gone (completed, its results 404) */
  status: string;
  /** the ids of the games in the batch */
  gameIds: string[];
  createdAt: number;
  finishedAt: number | null;
  cost: number | null;
}

/** A stored game without its text (most of its bytes), which reports never read (games.facts). */
export type GameFacts = Omit<Game, 'systemPrompt' | 'userPrompt' | 'reply'>;

/** The verdict columns of a game (a refresh's health check reads these). */
export interface GameVerdictRow {
  id: string;
  questionId: number;
  turn: number;
  model1: string;
  model2: string | null;
  order: 'AB' | 'BA';
  verdict: GameVerdict;
  source: string;
}

export interface JudgeSummary {
  judge: string;
  games: number;
  votes: number;
}

/** Questions, answers, references and judge prompts: what an import brings and a plan reads. */
export interface CatalogStore {
  /** tournament questions; with `set`, that labelled pair set's items instead */
  questions(filter?: { set?: string }): Promise<Question[]>;
  /** answers to tournament questions; with `set`, to that labelled set's items instead */
  answers(models?: string[], filter?: { set?: string }): Promise<Answer[]>;
  /** models with answers to tournament questions */
  models(): Promise<string[]>;
  references(): Promise<ReferenceAnswer[]>;
  prompts(): Promise<PromptScheme[]>;
  /** the labelled pair sets, by name, with their judges */
  pairSets(): Promise<PairSetSummary[]>;
  /** A cheap token that changes when questions or answers are added or removed (part of the site's data version) */
  stamp(): Promise<string>;
}

/** What `arena prune` removes: everything of one judge, one model or one run. */
export type PruneTarget = { judge: string } | { model: string } | { run: string };

/** Rows removed (or, in a dry run, that would be) per table. */
export interface PruneCounts {
  games: number;
  votes: number;
  answers: number;
  runs: number;
  attempts: number;
}

/** Judged games, keyed by their content-addressed id. */
export interface GameStore {
  /** which of these game ids are already stored */
  existingIds(ids: string[]): Promise<Set<string>>;
  /** insert unless a game with its id is stored; true when this call stored it */
  insert(game: Game): Promise<boolean>;
  /** insert many (the play loop's group commit); for each, true when it was stored, false when its id was already there */
  insertMany(games: Game[]): Promise<boolean[]>;
  list(filter?: GameFilter): Promise<Game[]>;
  /** list's games without their text, in list's order (streamed from SQLite, paged on D1) */
  facts(filter?: GameFilter): Promise<GameFacts[]>;
  /** the judges that have games or recorded votes on tournament questions */
  judges(): Promise<JudgeSummary[]>;
  /** a game's verdict and parser replaced (reparse); `recordedVerdict` where given, else that column untouched */
  updateVerdicts(
    updates: { id: string; verdict: GameVerdict; parser: string; recordedVerdict?: GameVerdict }[],
  ): Promise<void>;
  /** the games of some runs of one judge (a refresh's games), canary games included */
  ofRuns(judge: string, runIds: string[]): Promise<GameVerdictRow[]>;
  /**
   * Remove a judge's, a model's or a run's records, all or nothing; returns what it removed (with `dryRun`, what
   * it would, changing nothing).
   */
  prune(target: PruneTarget, o?: { dryRun?: boolean }): Promise<PruneCounts>;
}

/** Recorded votes (human or judge verdicts imported from files). */
export interface VoteStore {
  /** votes on tournament questions; with `set`, on that labelled set's items instead (the gold labels) */
  list(judge?: string, filter?: { set?: string }): Promise<Vote[]>;
}

/** Runs of the play loop, and their failed judge calls. */
export interface RunStore {
  /** insert or replace (by id) */
  save(run: RunRecord): Promise<void>;
  /** in start order; with `limit`, only the newest `limit` runs (still in start order) */
  list(limit?: number): Promise<RunRecord[]>;
  recordAttempt(a: {
    runId: string;
    gameId: string;
    judge: string;
    error: string;
    at: number;
    /** a failed call that was billed (reasoning at the allowance): what it used and cost */
    tokensIn?: number | null;
    tokensOut?: number | null;
    cost?: number | null;
  }): Promise<void>;
  /** of these games, those whose call once ended with an error beginning with `prefix` (core/constants.ts ALLOWANCE_TAG) */
  failedWith(ids: string[], prefix: string): Promise<Set<string>>;
  /** mark these runs `interrupted` if still `running` (heartbeat cleared), and free their leases (one atomic write); returns how many were marked */
  markInterrupted(ids: string[], at: number): Promise<number>;
}

/** Leases on games not yet stored, so that two runs never pay for the same game. */
export interface LeaseStore {
  /**
   * Lease games to run `owner` until `expiresAt`, in one atomic statement: of `ids`, those neither stored nor
   * leased to another run (expired leases taken over). Returns the ids now leased to `owner`.
   */
  claim(owner: string, ids: string[], expiresAt: number, now: number): Promise<string[]>;
  /** extend every lease `owner` holds */
  renew(owner: string, expiresAt: number): Promise<void>;
  /** give back these leases of `owner` (all of them without ids) */
  release(owner: string, ids?: string[]): Promise<void>;
}

/** `arena refresh` records. */
export interface RefreshStore {
  /** insert or replace (by id) */
  save(r: RefreshRecord): Promise<void>;
  /** a running refresh is alive at `at` (ms) */
  beat(id: string, at: number): Promise<void>;
  /** newest first; a running refresh's cost, played games and tokens as its stored games say */
  list(limit?: number): Promise<RefreshRecord[]>;
  /** mark every refresh still `running` as `interrupted` (its process is gone), its cost, played games and
   * tokens as its stored games say; returns how many were marked */
  markInterrupted(): Promise<number>;
}

/** Checkpoints of fine-tuning runs. */
export interface CheckpointStore {
  /** insert or replace (by series and name) */
  save(c: CheckpointRecord): Promise<void>;
  /** ordered by series, then step */
  list(series?: string): Promise<CheckpointRecord[]>;
}

/** OpenAI Batch API jobs. */
export interface BatchStore {
  /** insert or replace (by id) */
  save(b: BatchRecord): Promise<void>;
  /** oldest first; optionally only one judge's, or those with one status */
  list(filter?: { judge?: string; status?: string }): Promise<BatchRecord[]>;
  /** change fields of the batch `id` (its id too: a submission gets the server's batch id); no-op when absent */
  update(id: string, patch: Partial<BatchRecord>): Promise<void>;
  delete(id: string): Promise<void>;
}

/** The one storage interface, async so the same code runs on better-sqlite3 and D1; writes coarse and atomic. */
export interface Store {
  readonly catalog: CatalogStore;
  readonly games: GameStore;
  readonly votes: VoteStore;
  readonly runs: RunStore;
  readonly leases: LeaseStore;
  readonly refreshes: RefreshStore;
  readonly checkpoints: CheckpointStore;
  readonly batches: BatchStore;
  readonly ledger: LedgerStore;
  readonly annotators: AnnotatorStore;
  readonly limits: RateLimitStore;
  readonly reports: ReportStore;
  readonly pages: PageStore;
  /** write an import (questions, answers, prompts, games, votes, ...) all or nothing */
  importBundle(bundle: ImportBundle): Promise<ImportCounts>;
  close(): Promise<void>;
}

/** The names of the Store's groups. */
export type StoreGroup = {
  [K in keyof Store]: Store[K] extends (...a: never[]) => unknown ? never : K;
}[keyof Store];
