// The stored records that db/schema.ts types its JSON columns with: plain data, so that the schema (below
// storage) can name them without importing the storage layer. src/storage/store.ts re-exports them.
import type { SuccessionReport } from './stats/succession.ts';

export type RefreshStatus = 'running' | 'ok' | 'degraded' | 'budget' | 'failed' | 'interrupted';

/**
 * What readers outside src/ops use of a refresh's summary. The stored value is the whole
 * src/ops/refresh.ts RefreshSummary (stored as JSON); every field is optional because a running
 * refresh has only its plan, and older rows may lack newer fields.
 */
interface RefreshSummaryRecord {
  line?: string;
  played?: number;
  /** tokens sent and received by its played games (set when a running or killed refresh's ledger is derived) */
  tokensIn?: number;
  tokensOut?: number;
  failed?: number;
  skipped?: number;
  estCost?: number;
  imported?: { newModels?: string[]; changedAnswers?: number };
  /** judges that succeeded another in this refresh (src/ops/refresh/succession.ts): the bridge and the switch */
  succession?: SuccessionRecord[];
  /** per judge: its error and inconsistency rates in this refresh (null: too few games) */
  judges?: Record<string, { errorRate: number | null; inconsistencyRate: number | null }>;
}

/** A judge's succession in a refresh: its bridge report and whether the default board switched to it. */
export interface SuccessionRecord {
  from: string;
  to: string;
  /** when the bridge was read (ms) */
  at: number;
  /** the default board is now `to`'s (the bridge's Kendall's tau reached `minKendall`); else both are kept */
  switched: boolean;
  minKendall: number;
  why: string;
  stop: string;
  paid: number;
  report: SuccessionReport;
}

/** One `arena refresh` (src/ops/refresh.ts): the site shows the newest one's status. */
export interface RefreshRecord {
  id: string;
  startedAt: number;
  finishedAt: number | null;
  status: RefreshStatus;
  /** the config file's path and its parsed JSON */
  config: { file: string; config: unknown };
  /** the refresh's summary (src/ops/refresh.ts RefreshSummary) */
  summary: RefreshSummaryRecord;
  /** reasons it is degraded (or the error of a failed refresh), or null */
  degraded: string[] | null;
  cost: number;
  /** while it runs: when it last said it is alive (ms); a running refresh with a stale one was killed */
  heartbeatAt?: number | null;
}

/** How a checkpoint's answers were made (src/ops/checkpoints.ts). */
export type CheckpointGeneration =
  | { kind: 'imported'; file: string }
  | {
      kind: 'openai';
      baseURL: string;
      model: string;
      maxTokens: number;
      temperatures: Record<string, number>;
    }
  | {
      kind: 'llama-cpp';
      gguf: string;
      lora: string | null;
      maxTokens: number;
      seed: number;
      temperatures: Record<string, number>;
    };

/** One checkpoint of a fine-tuning run (src/ops/checkpoints.ts); its answers are stored as `model`. */
export interface CheckpointRecord {
  series: string;
  name: string;
  step: number;
  model: string;
  /** the model it is judged against (null when not recorded) */
  baseline: string | null;
  /** how its answers were made (stored as JSON) */
  generation: CheckpointGeneration;
}
