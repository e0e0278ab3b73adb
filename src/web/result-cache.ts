// The site's data cache: what live pages read changes only when someone imports, plays or votes, so every value is
// tied to a data fingerprint re-read at most once per `checkMs`; a change, or `maxAgeMs`, drops everything. Its keys
// are validated names (judges, models, filters), so the data bounds its size.
import type { Store } from '../storage/store.ts';

export interface CacheOptions {
  /** how often the data fingerprint is re-read (ms); 0 = on every request */
  checkMs?: number;
  /** a cheap token that changes whenever the data may have (SQLite's data version): while it holds, no re-read */
  version?: () => string;
  /** drop everything at least this often, even with an unchanged fingerprint (catches re-parses) */
  maxAgeMs?: number;
  now?: () => number;
}

export class ResultCache {
  private readonly entries = new Map<string, Promise<unknown>>();
  private fingerprint = '';
  private checkedAt = -Infinity;
  private filledAt = -Infinity;
  private checking: Promise<void> | undefined;
  private readonly checkMs: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private readonly token: (() => string) | undefined;
  /** the store's data token when the fingerprint was last read */
  private tokenAt: string | undefined;

  constructor(
    private readonly store: Store,
    o: CacheOptions = {},
  ) {
    this.checkMs = o.checkMs ?? 1000;
    this.maxAgeMs = o.maxAgeMs ?? 5 * 60_000;
    this.now = o.now ?? (() => Date.now());
    this.token = o.version;
  }

  /** Re-read the fingerprint if it is due; drop every value when the data changed. */
  async fresh(): Promise<void> {
    const t = this.now();
    if (t - this.checkedAt < this.checkMs && t - this.filledAt < this.maxAgeMs) return;
    if (this.token && t - this.filledAt < this.maxAgeMs) {
      const token = this.token();
      if (token === this.tokenAt) {
        this.checkedAt = t;
        return;
      }
    }
    this.checking ??= (async () => {
      try {
        // read before the fingerprint: a write landing in between is seen by the next check
        const token = this.token?.();
        const [judges, runs, refreshes, checkpoints, catalog] = await Promise.all([
          this.store.games.judges(),
          this.store.runs.list(),
          this.store.refreshes.list(1),
          this.store.checkpoints.list(),
          this.store.catalog.stamp(),
        ]);
        const fp = fnv1a(
          JSON.stringify([
            judges,
            runs.map((r) => [r.id, r.played, r.failed, r.status, r.finishedAt]),
            refreshes.map((r) => [r.id, r.status, r.finishedAt]),
            checkpoints,
            catalog,
          ]),
        );
        const t2 = this.now();
        if (fp !== this.fingerprint || t2 - this.filledAt >= this.maxAgeMs) {
          this.entries.clear();
          this.fingerprint = fp;
          this.filledAt = t2;
        }
        this.checkedAt = t2;
        this.tokenAt = token;
      } finally {
        this.checking = undefined;
      }
    })();
    await this.checking;
  }

  /** The cached value for `key`, computing it once (concurrent callers share the same promise). */
  get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) return hit as Promise<T>;
    const p = compute();
    this.entries.set(key, p);
    // a failure is not kept: the next request asks again
    p.catch(() => this.entries.get(key) === p && this.entries.delete(key));
    return p;
  }

  /** how many values the cache holds */
  get size(): number {
    return this.entries.size;
  }

  /** Drop every value and re-read the fingerprint next: a purge, or this process changed the data (a vote). */
  clear(): void {
    this.entries.clear();
    this.checkedAt = -Infinity;
    this.tokenAt = undefined;
  }
}

/** FNV-1a (64-bit, as 16 hex digits) of a string's UTF-16 code units: a fast, stable content hash for ETags. */
export function fnv1a(s: string): string {
  let h = 0xcbf29ce484222325n;
  // two 32-bit halves keep it fast without BigInt in the loop
  let lo = Number(h & 0xffffffffn);
  let hi = Number(h >> 32n);
  for (let i = 0; i < s.length; i++) {
    lo = (lo ^ s.charCodeAt(i)) >>> 0;
    // multiply by the 64-bit FNV prime 0x100000001b3 = 2^40 + 0x1b3
    const l = lo * 0x1b3;
    const hh = hi * 0x1b3 + (lo << 8) + Math.floor(l / 0x100000000);
    lo = l >>> 0;
    hi = hh >>> 0;
  }
  h = (BigInt(hi) << 32n) | BigInt(lo);
  return h.toString(16).padStart(16, '0');
}
