// Reports are data: what the site shows is computed when the games change and stored as rows of the `reports`
// table with the digest of exactly what it reads (reads.ts); SiteData reads through this memo. A missing or stale
// report is, by mode: build (every write) computed and stored; compute (`arena serve`, createApp's default) computed
// when asked, in memory; read (the Worker) never computed: a missing row is refused (ReportMissing), a stale one shown.
import type { DataDigest, ReportKey, ReportReads, StoredReport } from '../../storage/report-store.ts';
import type { Store } from '../../storage/store.ts';
import type { Memo, SiteOptions } from './catalog.ts';

/** The format of the stored bodies: bump it when a report's computation or shape changes. */
export const REPORT_VERSION = 3;

/** The row that records the digest the stored reports were built for (what the Worker compares with). */
export const STATE: ReportKey = { view: '_state', params: '' };

/** A report that was never built or published: the Worker says so rather than computing it. */
export class ReportMissing extends Error {
  constructor(readonly key: string) {
    super(
      `this report (${key}) has not been published yet: run \`arena reports --rebuild\` and \`arena publish\``,
    );
  }
}

type ReportMode = 'build' | 'compute' | 'read';

/** What a site's reports did since it started (tests and `arena reports` read it). */
export interface ReportCounts {
  /** computed here (build: and stored) */
  computed: number;
  /** read from a current row */
  read: number;
  /** answered with a stale row */
  stale: number;
  /** refused: not stored */
  missing: number;
}

/** JSON that keeps what plain JSON loses in the figures: NaN and the infinities (an interval that is undefined). */
const NUMBER = '$number';
export const encodeReport = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    typeof x === 'number' && !Number.isFinite(x) ? { [NUMBER]: String(x) } : x,
  ) ?? 'null';
/** A stored body read back (what encodeReport wrote). */
function decodeReport<T>(body: string): T {
  // the reviver visits every value: only a body that holds an encoded number needs it
  return (
    body.includes(`"${NUMBER}"`)
      ? JSON.parse(body, (_k, x: unknown) =>
          x !== null && typeof x === 'object' && NUMBER in x && Object.keys(x).length === 1
            ? Number((x as Record<string, string>)[NUMBER])
            : x,
        )
      : JSON.parse(body)
  ) as T;
}

/** What starts the parameters of every report built with these options: `bootstrap/1000|`. */
export const optionsTag = (o: SiteOptions): string => `${o.intervals ?? 'bootstrap'}/${o.bootstrapRounds}|`;

/** A report's memo key as its stored key: view, and parameters prefixed by the options that change figures. */
function reportKey(key: string, o: SiteOptions): ReportKey {
  const i = key.indexOf(':');
  return { view: i < 0 ? key : key.slice(0, i), params: `${optionsTag(o)}${i < 0 ? '' : key.slice(i + 1)}` };
}

/**
 * The digest a report is current at: the format's and that of what it reads. Web Crypto: native on Node and
 * Workers alike (a SHA-256 of the Worker's own would cost milliseconds a report).
 */
async function reportDigest(r: ReportReads, d: DataDigest): Promise<string> {
  const judges = r.judges === 'all' ? Object.keys(d.judges).sort() : r.judges;
  const tables = (['pairSets', ...r.tables] as const).map((t) => [t, d.tables?.[t] ?? null]);
  const text = JSON.stringify([REPORT_VERSION, tables, judges.map((j) => [j, d.judges[j] ?? null])]);
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...hash.subarray(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The site's data memo over stored reports (see the top of this file). */
export class StoredReports implements Memo {
  readonly counts: ReportCounts = { computed: 0, read: 0, stale: 0, missing: 0 };
  /** keys read or built (build mode: what `arena reports --rebuild` keeps) */
  readonly touched = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly inner: Memo,
    private readonly site: SiteOptions,
    private readonly mode: ReportMode,
  ) {}

  /** The data digest reports are compared with: the content's (build, compute) or the published state's (read). */
  digest(): Promise<DataDigest | undefined> {
    return this.inner.get('reports:digest', async () => {
      if (this.mode !== 'read') return this.store.reports.digest();
      const [row] = await this.store.reports.get([STATE]);
      return row ? decodeReport<DataDigest>(row.body) : undefined;
    });
  }

  /**
   * read: the judges of the published state (a judge first seen since has no report until the next publish);
   * undefined before any publish and in the other modes, which compute what is missing.
   */
  async judgesWithReports(): Promise<ReadonlySet<string> | undefined> {
    if (this.mode !== 'read') return undefined;
    const d = await this.digest();
    return d ? new Set(Object.keys(d.judges)) : undefined;
  }

  get<T>(key: string, compute: () => Promise<T>, reads?: ReportReads): Promise<T> {
    if (!reads) return this.inner.get(key, compute);
    return this.inner.get(key, () => this.load(key, reportKey(key, this.site), reads, compute));
  }

  private async load<T>(
    key: string,
    k: ReportKey,
    reads: ReportReads,
    compute: () => Promise<T>,
  ): Promise<T> {
    this.touched.add(`${k.view}\u0000${k.params}`);
    // read: the row is asked beside the published state, so that the reads a page makes together go to the
    // database together (the D1 Store batches them)
    const asked = this.mode === 'read' ? this.store.reports.get([k]) : undefined;
    asked?.catch(() => undefined);
    const d = await this.digest();
    const want = d ? await this.digestOf(reads, d) : '';
    const [row] = await (asked ?? this.store.reports.get([k]));
    if (row && row.version === REPORT_VERSION && row.digest === want) {
      this.counts.read++;
      return decodeReport<T>(row.body);
    }
    if (this.mode === 'build') return this.build(k, want, compute);
    if (this.mode === 'compute') {
      const value = await compute();
      this.counts.computed++;
      return value;
    }
    if (row && row.version === REPORT_VERSION) {
      this.counts.stale++;
      return decodeReport<T>(row.body);
    }
    this.counts.missing++;
    throw new ReportMissing(key);
  }

  /** reportDigest, once per data digest and declaration (many reports declare the same reads) */
  private digestOf(reads: ReportReads, d: DataDigest): Promise<string> {
    let known = this.digests.get(d);
    if (!known) this.digests.set(d, (known = new Map()));
    const key = JSON.stringify(reads);
    let digest = known.get(key);
    if (digest === undefined) known.set(key, (digest = reportDigest(reads, d)));
    return digest;
  }

  private readonly digests = new WeakMap<DataDigest, Map<string, Promise<string>>>();

  private async build<T>(k: ReportKey, digest: string, compute: () => Promise<T>): Promise<T> {
    const t0 = Date.now();
    const value = await compute();
    this.counts.computed++;
    const row: StoredReport = {
      ...k,
      digest,
      version: REPORT_VERSION,
      body: encodeReport(value),
      builtAt: Date.now(),
      ms: Date.now() - t0,
    };
    await this.store.reports.put([row]);
    // what is returned is what a later read parses: the same JSON (undefined fields dropped, NaN as null)
    return decodeReport<T>(row.body);
  }
}
