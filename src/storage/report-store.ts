// The stored reports' group of the Store: what the site shows, computed when the games change.

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

/**
 * The tables a report may read besides its judges' games and votes, each digested apart so that a report is
 * rebuilt only when one it reads changes. `pairSets` is read by every report (the Store leaves labelled items out).
 */
export const DIGEST_TABLES = ['pairSets', 'questions', 'answers', 'checkpoints'] as const;
export type DigestTable = (typeof DIGEST_TABLES)[number];

/** The content digest of what reports read: per judge (its games and votes), and per table. */
export interface DataDigest {
  judges: Record<string, string>;
  tables: Record<DigestTable, string>;
}

/**
 * What one report reads (src/reports/site/reads.ts): the games and votes of some judges (or all), and the tables
 * besides; its stored row is current while the digest of exactly these is unchanged.
 */
export interface ReportReads {
  judges: 'all' | readonly string[];
  tables: readonly Exclude<DigestTable, 'pairSets'>[];
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
  /** the digest of the data now stored (reads every game's id and verdict, and the tables reports read) */
  digest(): Promise<DataDigest>;
}
