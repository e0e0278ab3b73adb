// `arena serve` over a file that a refresh republishes by `VACUUM INTO` + rename: an open connection would read the
// old, unlinked file for ever. Its groups (`store.limits`, ...) forward too, for components that kept one at start.
import { statSync } from 'node:fs';
import { STORE_GROUPS } from '../storage/drizzle-store.ts';
import type { Store } from '../storage/store.ts';

function identity(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * A Store that delegates to `open(file)` and reopens it when the path names another file, looked at every
 * `checkMs` at most; the replaced connection stays open `graceMs` for queries still running on it.
 */
export function reopeningStore<S extends Store>(
  file: string,
  open: () => S,
  o: { checkMs?: number; graceMs?: number; log?: (message: string) => void } = {},
): S {
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
