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
import type { AnnotationChoice, Choice, ShownOrder } from '../core/annotate.ts';

export type {
  CheckpointGeneration,
  CheckpointRecord,
  RefreshRecord,
  RefreshStatus,
  RefreshSummaryRecord,
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
  /**
   * only games with this source ('run', 'canary', 'fastchat:<file>', ...). Without it, drift-canary
   * re-judgments (source 'canary') are left out: they measure a judge and never count as results.
   */
  source?: string;
  /**
   * only games on this labelled pair set's items (arena import pairs). Without it, games on labelled
   * items are left out (unless `withSets`): a labelled set is not a tournament.
   */
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

/**
 * An OpenAI Batch API job (src/ops/batch.ts). A submission is saved as `submitting` under a local id
 * before the upload and gets the server's batch id after it.
 */
export interface BatchRecord {
  id: string;
  refreshId: string | null;
  judge: string;
  inputFileId: string;
  /** submitting | submitted | imported | failed | expired | cancelled */
  status: string;
  /** the ids of the games in the batch */
  gameIds: string[];
  createdAt: number;
  finishedAt: number | null;
  cost: number | null;
}

/** Spending of one judge (the cost ledger). */
export interface JudgeCost {
  judge: string;
  games: number;
  tokensIn: number;
  tokensOut: number;
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
export interface GameCost {
  id: string;
  runId: string | null;
  judge: string;
  questionId: number;
  turn: number;
  model1: string;
  model2: string | null;
  order: 'AB' | 'BA';
  tokensIn: number | null;
  tokensOut: number | null;
  cost: number | null;
  source: string;
}

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

/** A judge's stored games with token counts, summed (token calibration of cost estimates). */
export interface TokenTotals {
  games: number;
  /** characters of system and user prompts */
  chars: number;
  tokensIn: number;
  tokensOut: number;
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
  /** the judges that have games or recorded votes on tournament questions */
  judges(): Promise<JudgeSummary[]>;
  /** a game's verdict and parser replaced (reparse); `recordedVerdict` where given, else that column untouched */
  updateVerdicts(
    updates: { id: string; verdict: GameVerdict; parser: string; recordedVerdict?: GameVerdict }[],
  ): Promise<void>;
  /** the games of some runs of one judge (a refresh's games), canary games included */
  ofRuns(judge: string, runIds: string[]): Promise<GameVerdictRow[]>;
  /**
   * Remove what should not be in the database, all or nothing: a judge's games, votes, runs and failed calls;
   * a model's answers, the games and votes it is in; a run's games, failed calls and record. Returns what it
   * removed; with `dryRun`, what it would remove, changing nothing.
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
  }): Promise<void>;
  /** mark these runs `interrupted` if still `running` (heartbeat cleared), and free their leases (one atomic write); returns how many were marked */
  markInterrupted(ids: string[], at: number): Promise<number>;
}

/** Leases on games not yet stored, so that two runs never pay for the same game. */
export interface LeaseStore {
  /**
   * Lease games to run `owner` until `expiresAt`, in one atomic statement: of `ids`, those neither stored
   * nor leased to another run (a lease that expired at or before `now` is taken over). Returns the ids
   * now leased to `owner` (its own earlier leases included, and extended).
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
  /** newest first */
  list(limit?: number): Promise<RefreshRecord[]>;
  /** mark every refresh still `running` as `interrupted` (its process is gone); returns how many were marked */
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

/** The cost ledger: what judges, runs and games spent. */
export interface LedgerStore {
  /** spending per judge, over all games or those of some runs; ordered by judge */
  byJudge(runIds?: string[]): Promise<JudgeCost[]>;
  /** runs with their cost, newest first */
  byRun(limit?: number): Promise<RunCost[]>;
  /** the most recent games with their cost, newest first */
  byGame(limit?: number): Promise<GameCost[]>;
  /** a judge's stored games that have both token counts, summed */
  tokenTotals(judge: string): Promise<TokenTotals>;
}

/** A person invited to vote on /annotate. */
export interface AnnotatorRecord {
  id: number;
  name: string;
  createdAt: number;
  /** when the invite was redeemed; null while unused */
  usedAt: number | null;
  /** when revoked; null while active */
  revokedAt: number | null;
}

/** A match shown to one annotator, the side shown first, and the answer once given. */
export interface AnnotationRecord {
  id: number;
  annotatorId: number;
  questionId: number;
  turn: number;
  model1: string;
  model2: string;
  order: ShownOrder;
  shownAt: number;
  /** null while pending */
  choice: AnnotationChoice | null;
  reason: string | null;
  answeredAt: number | null;
}

/** The match an annotation is about. */
export interface AnnotationMatch {
  questionId: number;
  turn: number;
  model1: string;
  model2: string;
}

/** Annotators, their invites, and what they were shown and answered; their votes land in the votes table. */
export interface AnnotatorStore {
  /** a new annotator with the SHA-256 of its invite token; an error when the name is taken */
  add(name: string, tokenHash: string, at: number): Promise<AnnotatorRecord>;
  /** by name */
  list(): Promise<AnnotatorRecord[]>;
  get(id: number): Promise<AnnotatorRecord | undefined>;
  /** revoke by name (sessions stop at once); false when no active annotator has the name */
  revoke(name: string, at: number): Promise<boolean>;
  /**
   * Redeem an invite, in one statement: the annotator whose unused invite has this hash and who is not revoked,
   * now marked used; undefined for an unknown, used or revoked invite.
   */
  redeem(tokenHash: string, at: number): Promise<AnnotatorRecord | undefined>;
  /** every match shown to the annotator (answered, skipped or pending), oldest first */
  shown(annotatorId: number): Promise<AnnotationRecord[]>;
  /** record that the match is shown with `order`; the row already there when it was shown before */
  show(annotatorId: number, match: AnnotationMatch, order: ShownOrder, at: number): Promise<AnnotationRecord>;
  annotation(id: number): Promise<AnnotationRecord | undefined>;
  /**
   * Answer a pending annotation, all or nothing: the choice and reason recorded and, unless skipped, one vote of
   * judge `annotators` (voter annotator_<id>). False when it was answered before (a second answer counts nothing).
   */
  answer(a: {
    annotation: AnnotationRecord;
    choice: Choice | 'skip';
    reason: string | null;
    at: number;
  }): Promise<boolean>;
  /** the answered annotations of every annotator (skips left out), oldest first: the export */
  answered(): Promise<AnnotationRecord[]>;
  /**
   * Take in what a site recorded (`arena publish` reads it from D1 first), all or nothing: invites redeemed there,
   * the matches shown and answered there, the votes cast there. What this database holds is kept. Refused, nothing
   * written, when the site contradicts it: another annotator under an annotator's id, another match or answer
   * under an annotation's id, another vote under a vote's line (votes collected here and there at once).
   */
  mergeSite(site: SiteAnnotate): Promise<MergedSite>;
}

/** A site's annotate state, as `arena publish` reads it from D1. */
export interface SiteAnnotate {
  annotators: { id: number; name: string; usedAt: number | null }[];
  annotations: AnnotationRecord[];
  /** the votes the site's annotators cast (judge `annotators`, source `annotate`) */
  votes: SiteVote[];
}

/** A vote an annotator cast on a site, as the votes table holds it (FastChat's spelling of the winner). */
export interface SiteVote {
  voter: string;
  questionId: number;
  turn: number;
  modelA: string;
  modelB: string;
  winner: 'model_a' | 'model_b' | 'tie' | 'inconsistent';
  /** the vote's number among the site's votes (the votes table's line of source `annotate`) */
  line: number;
}

/** What mergeSite added: invites newly marked used, annotations added, answers taken in, votes added. */
export interface MergedSite {
  redeemed: number;
  annotations: number;
  answers: number;
  votes: number;
}

/** Request counters shared by every process or isolate on the database (the annotate pages' rate limits). */
export interface RateLimitStore {
  /**
   * Count one request of `key` at `now` in a fixed window of `windowMs` that starts with the key's first request
   * (or the first after its window ended), in one statement: the requests counted in the window, this one included,
   * and when the window ends. Windows that have ended are deleted as new ones start.
   */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

/** A stored report's key: the view and its parameters. */
export interface ReportKey {
  view: string;
  params: string;
}

/** What the site shows, computed when the games change: one view with its parameters, as JSON. */
export interface StoredReport extends ReportKey {
  /** the digest of the data it was computed from (see DataDigest) */
  digest: string;
  /** the format version of `body` */
  version: number;
  body: string;
  builtAt: number;
  /** how long computing it took (ms) */
  ms: number;
}

/** The content digest of what reports read: per judge (its games and votes), and of the catalog. */
export interface DataDigest {
  judges: Record<string, string>;
  /** questions, answers and checkpoints */
  catalog: string;
}

/** Stored reports (src/reports/site/stored.ts writes and reads them). */
export interface ReportStore {
  /** the stored reports of these keys (those there are), in one read */
  get(keys: ReportKey[]): Promise<StoredReport[]>;
  /** insert or replace (by view and params), all or nothing */
  put(rows: StoredReport[]): Promise<void>;
  /** every stored report without its body */
  index(): Promise<Omit<StoredReport, 'body'>[]>;
  remove(keys: ReportKey[]): Promise<void>;
  /** the digest of the data now stored (reads every game's id and verdict, no texts) */
  digest(): Promise<DataDigest>;
}

/**
 * The one storage interface, one group per kind of record. Every method is async so that the same
 * calling code runs on better-sqlite3 (Node) and D1 (Workers). Writes are coarse and atomic.
 */
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
  /** write an import (questions, answers, prompts, games, votes, ...) all or nothing */
  importBundle(bundle: ImportBundle): Promise<ImportCounts>;
  close(): Promise<void>;
}

/** The names of the Store's groups. */
export type StoreGroup = {
  [K in keyof Store]: Store[K] extends (...a: never[]) => unknown ? never : K;
}[keyof Store];
