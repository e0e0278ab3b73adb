// The words of the play loop: a game to play (PlayItem), the run that plays it (PlayRun), what it reports as
// it goes (RunProgress), what it is given (PlayOptions), and who plays (Liveness, wired by the CLI).
import type { GameSpec, Game, JudgeSettings } from '../../core/types.ts';
import type { ReadVerdict } from '../../core/verdict/of-reply.ts';
import type { JudgeReply, JudgeRequest } from '../../judges/judge.ts';
import type { RunRecord, Store } from '../../storage/store.ts';

/** One game to play: its spec and content id, and its settings where they differ from the run's (a calibrated sample). */
export interface PlayItem {
  spec: GameSpec;
  id: string;
  settings?: JudgeSettings;
}

/** A run record with what the loop counts beside it. */
export interface PlayRun extends RunRecord {
  errors: string[];
  /** games the budget refused to start */
  skipped: number;
  /** planned games another run (another process on the same database) stored while this one ran */
  elsewhere: number;
  /** stored games whose reply came without valid token counts (left unknown, not counted in the tokens) */
  usageUnknown: number;
  /** occurrences of the judge's API key taken out of stored replies (a server echoed it) */
  redacted: number;
  /** USD the budget charged at its estimate for calls of unknown cost (no usage, failed); not in `cost` */
  costEstimated: number;
}

export interface RunProgress {
  done: number;
  failed: number;
  total: number;
  tokensIn: number;
  tokensOut: number;
  last?: { game: Game } | { error: string };
}

/**
 * Who plays a run: the CLI (cli/liveness.ts) names this process and tells whether another run's is alive; without
 * it another run's end is known only from its heartbeat.
 */
export interface Liveness {
  /** this process, e.g. "host:pid" (stored on the run record while it runs) */
  owner: string;
  /** whether the process named by another running run's `owner` is alive (undefined: cannot tell) */
  isAlive(owner: string): boolean | undefined;
}

export interface PlayOptions {
  store: Store;
  /** the run the games belong to (its judge is the games' judge); its counters are kept up to date here */
  run: PlayRun;
  /** One game's call (a judge's `complete`, or a reply fetched earlier); a throw is a failed attempt. */
  call(
    item: PlayItem,
    ctx: { settings: JudgeSettings; onRetry: NonNullable<JudgeRequest['onRetry']>; signal?: AbortSignal },
  ): Promise<JudgeReply>;
  /** the reply's verdict (core/verdict-of.ts `verdictOf`, or a scheme's own reader) */
  read(spec: GameSpec, text: string): ReadVerdict;
  /** the games' judge settings (an item's own settings win) */
  settings: JudgeSettings;
  /** the stored games' `source` (default 'run') */
  source?: string;
  /** false: the replies were not timed here (batch import): latency unknown */
  timed?: boolean;
  concurrency?: number;
  signal?: AbortSignal;
  /** called after every finished or failed game */
  onProgress?(p: RunProgress): void;
  /** one call's USD cost from its token counts; without it costs are unknown (null) */
  costOf?(tokensIn: number | null, tokensOut: number | null, tokensCached?: number | null): number | null;
  /** a budget cap: asked before each call, told each call's cost (null: unknown), returns what it charged */
  budget?: {
    reserve(id: string, spec: GameSpec): boolean | Promise<boolean>;
    settle(id: string, cost: number | null): number | void;
  };
  /** how long a game's lease lasts without renewal (default 60 s) */
  leaseMs?: number;
  /** whether the process named by another running run's `owner` is alive (undefined: cannot tell) */
  isAlive?(owner: string): boolean | undefined;
  /** how often progress is written to the run record while games land (default 1 s) */
  flushMs?: number;
  /** Where paid replies go when the database refuses a write (storage/recovery.ts); returns where they are. */
  spill?(games: Game[], run: RunRecord): Promise<string>;
}
