// A Store whose named reads are made once per distinct arguments while it lives, each reader getting its own copy of
// an array: a report build (each filter's game facts), or one report whose fits read the same lists.
import type { Store } from '../storage/store.ts';

type Reads = { [G in 'games' | 'votes' | 'catalog']?: keyof Store[G] & string };

/** `store` with `reads` made once; `keep` may drop a value once it came (a build keeps only so many facts). */
export function readOnce(store: Store, reads: Reads, keep: (value: unknown) => boolean = () => true): Store {
  const memo = new Map<string, Promise<unknown>>();
  const once = (group: object, method: string) =>
    new Proxy(group, {
      get: (t, p) => {
        const read = bound(t, p);
        if (p !== method) return read;
        return (...args: unknown[]) => {
          const key = `${method}\u0000${JSON.stringify(args.map((a) => a ?? {}))}`;
          let r = memo.get(key);
          if (!r) {
            memo.set(key, (r = (read as (...a: unknown[]) => Promise<unknown>)(...args)));
            r.then(
              (v) => keep(v) || memo.delete(key),
              () => memo.delete(key),
            );
          }
          return r.then((v) => (Array.isArray(v) ? [...(v as unknown[])] : v));
        };
      },
    });
  const groups = new Map(Object.entries(reads).map(([g, m]) => [g, once(store[g as keyof Reads], m)]));
  return new Proxy(store, { get: (t, p) => (typeof p === 'string' && groups.get(p)) || bound(t, p) });
}

function bound(t: object, k: string | symbol): unknown {
  const v = Reflect.get(t, k, t) as unknown;
  return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
}
