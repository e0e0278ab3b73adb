// A D1 binding with no rows: every statement answers an empty result at once (no I/O), for the Worker's entry.
import type { AnyD1Database } from 'drizzle-orm/d1';

export function emptyD1(): AnyD1Database {
  const statement = () => {
    const s = {
      bind: () => s,
      all: () => Promise.resolve({ results: [], success: true, meta: {} }),
      raw: () => Promise.resolve([]),
      first: () => Promise.resolve(null),
      run: () => Promise.resolve({ results: [], success: true, meta: {} }),
    };
    return s;
  };
  return {
    prepare: () => statement(),
    batch: (s: { all(): Promise<unknown> }[]) => Promise.all(s.map((x) => x.all())),
    exec: () => Promise.resolve({ count: 0, duration: 0 }),
    dump: () => Promise.resolve(new ArrayBuffer(0)),
  } as unknown as AnyD1Database;
}
