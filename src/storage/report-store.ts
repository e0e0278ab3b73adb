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
