// Reports are data: what the site shows (standings, ratings and intervals, agreement, health, style, the judge
// board, checkpoints) is computed when the games change and stored as rows of the `reports` table, one per view
// and its parameters, with the digest of the data it was computed from (Store.reports). The site's data
// (SiteData) reads through this memo: a key given with what its computation reads (src/reports/site/reads.ts) is
// a report, read from its row while the row's digest, that of exactly what it reads, is current.
// What happens to a missing or stale one depends on who reads:
//   build  (the CLI after import, run, refresh, reparse, prune, publish; `arena reports --rebuild`): computes it
//          and stores the row;
//   compute (a site built as a library, createApp's default): computes it when asked, once, holding it in memory;
//   serve  (the Node site, read-only): answers with the stale row (`updating` is then true, the page says so) and
//          computes it in the background, one report at a time, each key once however many requests ask; with no
//          row at all it computes it at once, each key once however many requests (and reports) ask, and the
//          request waits for it (ReportPending only if it failed); the result is held in memory, never written.
//          A stale report that a computation under way may be reading (what that one reads covers it: a model
//          page's leaderboards) is computed, not shown stale, so that no report is computed from a stale one;
//   read   (the Worker): never computes; a missing row is refused (ReportMissing), a stale one shown as such.
import type { DataDigest, ReportKey, ReportReads, StoredReport } from '../../storage/report-store.ts';
import type { Store } from '../../storage/store.ts';
import { sha256Hex } from '../../core/sha256.ts';
import type { Memo, SiteOptions } from './catalog.ts';

/** The format of the stored bodies: bump it when a report's computation or shape changes. */
export const REPORT_VERSION = 3;

/** The row that records the digest the stored reports were built for (what the Worker compares with). */
export const STATE: ReportKey = { view: '_state', params: '' };

/** A report the Node site is computing now: the page says it is being updated (503 with Retry-After). */
export class ReportPending extends Error {
  constructor(readonly key: string) {
    super(`this page is being updated (${key}); reload in a few seconds`);
  }
}

/** A report that was never built or published: the Worker says so rather than computing it. */
export class ReportMissing extends Error {
  constructor(readonly key: string) {
    super(
      `this report (${key}) has not been published yet: run \`arena reports --rebuild\` and \`arena publish\``,
    );
  }
}

/** How long the Node site waits after a request before reading the content digest (it blocks the thread). */
const VERIFY_AFTER_MS = 1000;

type ReportMode = 'build' | 'compute' | 'serve' | 'read';

/** What a site's reports did since it started (tests and `arena reports` read it). */
export interface ReportCounts {
  /** computed here (build: and stored) */
  computed: number;
  /** read from a current row */
  read: number;
  /** answered with a stale row */
  stale: number;
  /** refused: not stored (and, when serving, being computed) */
  missing: number;
  /** pages answered from their pre-rendered rows (src/web/prerender.ts), none of their reports read */
  pages: number;
}

export interface StoredReportsOptions {
  mode: ReportMode;
  /** called when a report computed in the background is ready (the site drops its cached pages) */
  updated?: () => void;
  /** a report computed in the background failed (its pages keep saying so until it is asked again) */
  failed?: (key: string, e: unknown) => void;
  /**
   * serve: the site's data version (its result cache's): when it changed since the content digest was read, the
   * digest is read again at once rather than a second later (until then, reports of the old data read as current)
   */
  version?: () => string;
  now?: () => number;
}

/** JSON that keeps what plain JSON loses in the figures: NaN and the infinities (an interval that is undefined). */
const NUMBER = '$number';
export const encodeReport = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    typeof x === 'number' && !Number.isFinite(x) ? { [NUMBER]: String(x) } : x,
  ) ?? 'null';
/** The size of each decoded report's body (UTF-16 bytes), for the site's byte-bounded cache (storedBytes). */
const bodyBytes = new WeakMap<object, number>();

/** The bytes of the body a value was decoded from, when it is a stored report's (else undefined). */
export const storedBytes = (v: unknown): number | undefined =>
  v !== null && typeof v === 'object' ? bodyBytes.get(v) : undefined;

/** A stored body read back (what encodeReport wrote), its size noted for storedBytes. */
export function decodeReport<T>(body: string): T {
  // the reviver visits every value: only a body that holds an encoded number needs it
  const v = (
    body.includes(`"${NUMBER}"`)
      ? JSON.parse(body, (_k, x: unknown) =>
          x !== null && typeof x === 'object' && NUMBER in x && Object.keys(x).length === 1
            ? Number((x as Record<string, string>)[NUMBER])
            : x,
        )
      : JSON.parse(body)
  ) as T;
  if (v !== null && typeof v === 'object') bodyBytes.set(v, 2 * body.length);
  return v;
}

/** What starts the parameters of every report built with these options: `bootstrap/1000|`. */
export const optionsTag = (o: SiteOptions): string => `${o.intervals ?? 'bootstrap'}/${o.bootstrapRounds}|`;

/** A report's memo key as its stored key: view, and parameters prefixed by the options that change figures. */
function reportKey(key: string, o: SiteOptions): ReportKey {
  const i = key.indexOf(':');
  return { view: i < 0 ? key : key.slice(0, i), params: `${optionsTag(o)}${i < 0 ? '' : key.slice(i + 1)}` };
}

/**
 * The digest a report is current at: the format, and the digest of what it reads (its judges' games and votes,
 * the labelled-set items and the tables it declares). A published digest of an older shape matches nothing.
 */
export function reportDigest(r: ReportReads, d: DataDigest): string {
  return sha256Hex(digestInput(r, d)).slice(0, 32);
}

/** What reportDigest hashes. */
function digestInput(r: ReportReads, d: DataDigest): string {
  const judges = r.judges === 'all' ? Object.keys(d.judges).sort() : r.judges;
  const tables = (['pairSets', ...r.tables] as const).map((t) => [t, d.tables?.[t] ?? null]);
  return JSON.stringify([REPORT_VERSION, tables, judges.map((j) => [j, d.judges[j] ?? null])]);
}

/**
 * reportDigest through the runtime's Web Crypto where there is one (native, asynchronous): on Workers the
 * synchronous digest is SHA-256 in JavaScript, milliseconds per report on a new isolate's first request.
 */
async function reportDigestAsync(r: ReportReads, d: DataDigest): Promise<string> {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (!subtle) return reportDigest(r, d);
  const hash = new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(digestInput(r, d))));
  let hex = '';
  for (const b of hash.subarray(0, 16)) hex += (b < 16 ? '0' : '') + b.toString(16);
  return hex;
}

/** The site's data memo over stored reports (see the top of this file). */
export class StoredReports implements Memo {
  readonly counts: ReportCounts = { computed: 0, read: 0, stale: 0, missing: 0, pages: 0 };
  /** reports the Node site computed: key -> digest and value */
  private readonly here = new Map<string, { digest: string; value: unknown }>();
  private readonly queued = new Map<string, () => Promise<void>>();
  /** serve: each computation under way, by key and digest (the one every request and report asking for it waits for) */
  private readonly computing = new Map<string, { key: string; reads: ReportReads; p: Promise<unknown> }>();
  private running: Promise<void> | undefined;
  private staleShown = false;
  /** keys read or built (build mode: what `arena reports --rebuild` keeps) */
  readonly touched = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly inner: Memo,
    private readonly site: SiteOptions,
    private readonly o: StoredReportsOptions,
  ) {}

  /** Whether a page shown now may be older than the data (a stale report shown, or one being computed). */
  get updating(): boolean {
    return this.staleShown || this.queued.size > 0 || this.running !== undefined;
  }

  /** The data digest reports are compared with: the content's (build, serve) or the published state's (read). */
  digest(): Promise<DataDigest | undefined> {
    return this.inner.get('reports:digest', async () => {
      this.staleShown = false;
      if (this.o.mode === 'build' || this.o.mode === 'compute') return this.store.reports.digest();
      const [row] = await this.store.reports.get([STATE]);
      const published = row ? decodeReport<DataDigest>(row.body) : undefined;
      if (this.o.mode === 'read') return published;
      // serve: the digest the reports were built for answers at once; the content's (every game read: a second
      // on a large database) is checked after the request, and a change shows the pages as being updated; a
      // server that read it before listening (prime) checks again only after the data changed, and then at once
      // (a vote cast must not leave the old figures read as current)
      if (this.primed) this.primed = false;
      else if (this.content && this.o.version && this.o.version() !== this.contentAt)
        await this.readContent();
      else this.verify();
      this.published = published;
      return this.content ?? published;
    });
  }

  /** the content digest the Node site last read (serve), and the site's data version then */
  private content: DataDigest | undefined;
  private contentAt: string | undefined;
  private published: DataDigest | undefined;
  private verifying: ReturnType<typeof setTimeout> | undefined;
  private primed = false;

  /**
   * serve: read the content digest now, before a server listens, rather than one second after its first request
   * (it blocks the thread for as long as reading every game's verdict takes: 0.2-0.6 s of CPU on the release
   * database with the study's judgments, which would otherwise land on the first visitor's next requests).
   */
  async prime(): Promise<void> {
    if (this.o.mode !== 'serve') return;
    await this.readContent();
    this.primed = true;
    // and the published digest beside it, held with the site's data until the data changes
    await this.digest();
  }

  private async readContent(): Promise<void> {
    const at = this.o.version?.();
    this.content = await this.store.reports.digest();
    this.contentAt = at;
  }

  private verify(): void {
    this.verifying ??= setTimeout(() => {
      const at = this.o.version?.();
      void this.store.reports.digest().then(
        (d) => {
          this.verifying = undefined;
          const was = this.content ?? this.published;
          this.content = d;
          this.contentAt = at;
          if (JSON.stringify(d) !== JSON.stringify(was)) this.o.updated?.();
        },
        (e) => {
          this.verifying = undefined;
          this.o.failed?.('digest', e);
        },
      );
    }, VERIFY_AFTER_MS);
  }

  /**
   * read: the judges of the published state (a judge first seen since, such as `annotators` after the first vote
   * cast on the Worker, has no report to show until the next publish); undefined before any publish (every page then
   * says what to run) and in the other modes, which compute what is missing.
   */
  async judgesWithReports(): Promise<ReadonlySet<string> | undefined> {
    if (this.o.mode !== 'read') return undefined;
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
    const asked = this.o.mode === 'read' ? this.store.reports.get([k]) : undefined;
    asked?.catch(() => undefined);
    const d = await this.digest();
    const want = d ? await this.digestOf(reads, d) : '';
    const mine = this.here.get(key);
    if (mine && mine.digest === want) return mine.value as T;
    const [row] = await (asked ?? this.store.reports.get([k]));
    if (row && row.version === REPORT_VERSION && row.digest === want) {
      this.counts.read++;
      return decodeReport<T>(row.body);
    }
    if (this.o.mode === 'build') return this.build(k, want, compute);
    if (this.o.mode === 'compute') {
      const value = await compute();
      this.counts.computed++;
      return value;
    }
    if (this.o.mode === 'serve' && (!row || row.version !== REPORT_VERSION || this.nested(key, reads))) {
      if (!row || row.version !== REPORT_VERSION) this.counts.missing++;
      // nothing to show yet, or a stale row a computation under way may be reading: compute it now. Never behind the
      // background queue: a report computed there asks for its nested ones, and one queued behind the report that
      // waits for it is never reached (the model pages of a database without reports never answered)
      return (await this.computeOnce(key, want, reads, compute).catch((e: unknown) => {
        this.o.failed?.(key, e);
        throw new ReportPending(key);
      })) as T;
    }
    if (row && row.version === REPORT_VERSION) {
      if (this.o.mode === 'serve') {
        this.enqueue(key, want, reads, compute);
        // not held by the memo: a computation that reads it later must not get the stale value from there
        this.inner.delete?.(key);
      }
      this.counts.stale++;
      this.staleShown = true;
      return decodeReport<T>(row.body);
    }
    this.counts.missing++;
    throw new ReportMissing(key);
  }

  /** Whether a computation under way of another report reads everything `reads` declares (it may be asking). */
  private nested(key: string, reads: ReportReads): boolean {
    for (const c of this.computing.values()) {
      if (c.key === key) continue;
      const judges =
        c.reads.judges === 'all' ||
        (reads.judges !== 'all' && reads.judges.every((j) => c.reads.judges.includes(j)));
      if (judges && reads.tables.every((t) => c.reads.tables.includes(t))) return true;
    }
    return false;
  }

  /** serve: compute `key` at `digest` and keep it in `here`, once however many (requests and reports) ask meanwhile. */
  private computeOnce(key: string, digest: string, reads: ReportReads, compute: () => Promise<unknown>) {
    const id = `${key}\u0000${digest}`;
    const under = this.computing.get(id);
    if (under) return under.p;
    const p = (async () => {
      try {
        const value = decodeReport<unknown>(encodeReport(await compute()));
        this.counts.computed++;
        this.here.set(key, { digest, value });
        return value;
      } finally {
        this.computing.delete(id);
      }
    })();
    this.computing.set(id, { key, reads, p });
    return p;
  }

  /** reportDigest, once per data digest and declaration (many reports declare the same reads) */
  private digestOf(reads: ReportReads, d: DataDigest): Promise<string> {
    let known = this.digests.get(d);
    if (!known) this.digests.set(d, (known = new Map()));
    const key = JSON.stringify(reads);
    let digest = known.get(key);
    // the modes that read the content digest hashed it here with sha256Hex (native on Node: microseconds a
    // report); the Worker's (read) never did, and hashes through Web Crypto
    if (digest === undefined)
      known.set(
        key,
        (digest =
          this.o.mode === 'read' ? reportDigestAsync(reads, d) : Promise.resolve(reportDigest(reads, d))),
      );
    return digest;
  }

  private readonly digests = new WeakMap<DataDigest, Map<string, Promise<string>>>();

  private async build<T>(k: ReportKey, digest: string, compute: () => Promise<T>): Promise<T> {
    const now = this.o.now ?? Date.now;
    const t0 = now();
    const value = await compute();
    this.counts.computed++;
    const row: StoredReport = {
      ...k,
      digest,
      version: REPORT_VERSION,
      body: encodeReport(value),
      builtAt: now(),
      ms: Math.round(now() - t0),
    };
    await this.store.reports.put([row]);
    // what is returned is what a later read parses: the same JSON (undefined fields dropped, NaN as null)
    return decodeReport<T>(row.body);
  }

  /** Compute `key` in the background, after those queued before it; once per key however often asked. */
  private enqueue(key: string, digest: string, reads: ReportReads, compute: () => Promise<unknown>): void {
    if (this.queued.has(key)) return;
    this.queued.set(key, () =>
      this.computeOnce(key, digest, reads, compute).then(
        () => undefined,
        (e: unknown) => this.o.failed?.(key, e),
      ),
    );
    this.running ??= this.drain();
  }

  private async drain(): Promise<void> {
    // one report at a time: the requests that asked get a "being updated" page meanwhile, not a slow one
    while (this.queued.size) {
      const [key, job] = this.queued.entries().next().value!;
      await new Promise((r) => setTimeout(r, 0));
      await job();
      this.queued.delete(key);
    }
    this.running = undefined;
    this.o.updated?.();
  }

  /** Resolves when no report is being computed in the background (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }
}
