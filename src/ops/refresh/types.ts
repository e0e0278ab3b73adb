// The shapes a refresh is given and gives back, shared by its steps (import, plan, play, report, publish).
import type { GameSpec, Mode } from '../../core/types.ts';
import type { SuccessionRecord } from '../../core/records.ts';
import type { RunProgress } from '../../engine/run.ts';
import type { JudgeProvider } from '../../judges/judge.ts';
import type { RefreshStatus, Store } from '../../storage/store.ts';
import type { BatchReport } from '../batch.ts';
import type { JudgeConfig, Loaded, RefreshConfig } from '../config.ts';
import type { Env, OpenBatchClient, OpenJudge, Publisher, RunHook, Spill } from '../deps.ts';
import type { Liveness } from '../../engine/play/index.ts';
import type { Drift, JudgeHealth } from '../health.ts';
import type { PlanEstimate, priceFor, TokenModel } from '../prices.ts';

/** Exit codes a cron job or CI can act on (0 ok; 1 is a usage or config error, from the CLI). */
export const EXIT = { ok: 0, failed: 2, degraded: 3, budget: 4, interrupted: 130 } as const;

export interface RefreshOptions {
  /** the database the refresh works on (a dry run only reads it) */
  store: Store;
  /** opens the judges of the config (the CLI: src/cli/ops-context.ts) */
  judges: OpenJudge;
  /** opens the Batch API client of a `batch: true` judge (the CLI: src/cli/ops-context.ts); needed only by those */
  batches?: OpenBatchClient;
  /** the refresh config, checked, with its paths resolved (loadRefreshConfig) */
  config: Loaded<RefreshConfig>;
  /** the targets of `publish.sqlite` and `publish.d1` (they copy the database file); without it they are refused */
  publish?: Publisher;
  /** runs `publish.command` (the CLI: a child process); without it that command is refused */
  runHook?: RunHook;
  /** print the plan and the estimated cost; the database is not changed */
  dryRun?: boolean;
  signal?: AbortSignal;
  log?(msg: string): void;
  /** a run is about to play `toPlay` games */
  onRunStart?(info: { judge: string; mode: string; toPlay: number }): void;
  onProgress?(p: RunProgress & { judge: string }): void;
  /** where keys are read and `publish.command` runs with (the CLI: its process's); default none */
  env?: Env;
  /** who plays: this process as the runs' owner, and whether another run's owner is alive (the CLI: src/cli/liveness.ts) */
  liveness?: Liveness;
  /** where a run puts the replies it paid for but the database refused (a full disk: storage/recovery.ts) */
  spill?: Spill;
}

export interface PlanLine extends PlanEstimate {
  mode: string;
  /** a dry run of a mode with untilSettled: the line is the settled run's estimate, these the full plan's */
  fullPlan?: Pick<PlanEstimate, 'toPlay' | 'estTokensIn' | 'estTokensOut' | 'estCost'>;
  /** the judge's model is retired within 30 days, or was (core/retirement.ts): the warning */
  retiring?: string;
}

export interface RefreshSummary {
  id: string;
  status: RefreshStatus | 'dry-run';
  exitCode: number;
  imported: { answers: number; newModels: string[]; changedAnswers: number; questions: number };
  plan: PlanLine[];
  estCost: number;
  runs: {
    id: string;
    judge: string;
    mode: string;
    played: number;
    failed: number;
    skipped: number;
    /** USD, with what was charged at the estimate (calls of unknown cost: no usage, failed) */
    cost: number | null;
    /** USD of `cost` charged at the estimate */
    costEstimated: number;
    status: string;
  }[];
  played: number;
  failed: number;
  skipped: number;
  cost: number;
  /** USD of `cost` charged at the estimate (calls whose cost the server did not report, failed calls) */
  costEstimated: number;
  judges: Record<string, JudgeHealth>;
  /** judges with `succeeds`: each bridge's report and whether the board switched */
  succession?: SuccessionRecord[];
  drift: Record<string, Drift>;
  degraded: string[];
  batches: BatchReport[];
  published: string[];
  seconds: number;
  /** the one line for the cron log */
  line: string;
}

/** One judge of the config, opened, with what it will play per mode and what that costs. */
export interface JudgePlan {
  cfg: JudgeConfig;
  judge: JudgeProvider;
  tokens: TokenModel;
  price: ReturnType<typeof priceFor>;
  modes: {
    mode: Mode;
    models: string[];
    baseline?: string;
    /** play the plan in rounds until settled (engine/settle.ts), with these options */
    settle?: { round?: number; target?: number; width?: number };
    games: { spec: GameSpec; id: string }[];
    toPlay: number;
  }[];
}
