// `arena serve` over a file that a refresh republishes by `VACUUM INTO` + rename: the open connection keeps
// reading the old, unlinked file, so the server would show stale results for ever. This Store notices that
// the path now names another file (device and inode differ) and reopens it. Its groups (`store.limits`, ...)
// are forwarders too: a component that kept one at start (the annotate rate limiter) follows every reopen.
import { statSync } from 'node:fs';
import { STORE_GROUPS } from '../storage/drizzle-store.ts';
import type { Store } from '../storage/store.ts';

export interface ReopeningOptions {
  /** how often the file is looked at, at most (ms; default 1000) */
  checkMs?: number;
  /** how long the replaced connection stays open for queries still running on it (ms; default 30 s) */
  graceMs?: number;
  /** told of every reopen (or of a replacement that could not be opened: the old file keeps being served) */
  log?(message: string): void;
}

function identity(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** A Store that delegates to `open(file)` and reopens it when the file at that path is replaced. */
export function reopeningStore<S extends Store>(file: string, open: () => S, o: ReopeningOptions = {}): S {
  const checkMs = o.checkMs ?? 1000;
  const graceMs = o.graceMs ?? 30_000;
  let current = open();
  let id = identity(file);
  let checkedAt = Date.now();
  const maybeReopen = () => {
    const now = Date.now();
    if (now - checkedAt < checkMs) return;
    checkedAt = now;
    const next = identity(file);
    if (next === undefined || next === id) return;
    let fresh: S;
    try {
      fresh = open();
    } catch (e) {
      o.log?.(
        `${file} was replaced, but the new file cannot be opened (${(e as Error).message}); still serving the previous one`,
      );
      id = next; // do not retry on every request; a later replacement is picked up
      return;
    }
    const old = current;
    current = fresh;
    id = next;
    o.log?.(`${file} was replaced: reopened it`);
    setTimeout(() => void old.close().catch(() => {}), graceMs).unref();
  };
  // a property of what the path names now: a method bound to it
  const read = (target: object, prop: PropertyKey) => {
    const v = (target as Record<PropertyKey, unknown>)[prop];
    return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
  };
  const groups = new Map<PropertyKey, object>(
    STORE_GROUPS.map((g) => [
      g,
      new Proxy({}, { get: (_, prop) => (maybeReopen(), read((current as Store)[g], prop)) }),
    ]),
  );
  return new Proxy({} as S, {
    get(_, prop) {
      if (prop !== 'close') maybeReopen();
      return groups.get(prop) ?? read(current, prop);
    },
  });
}
