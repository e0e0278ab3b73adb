// The Worker (src/entry/worker.ts) with its D1 binding timed, for bench/site-worker.ts: every statement's
// `all`/`first`/`raw`/`run` and every `batch` is timed by the Worker's clock, which moves only across I/O (so it
// measures the wait for D1 and nothing of the handler's own compute), and the response says how long the
// request waited for D1 and how many calls it made: `Server-Timing: d1;dur=MS;desc="N calls"`.
import worker, { type Env } from '../src/entry/worker.ts';

type Fn = (...a: unknown[]) => unknown;
interface Tally {
  ms: number;
  calls: number;
}

/** `stmt` with its run methods timed into `t`; `real` maps a timed statement back to D1's (for `batch`). */
function timedStatement(stmt: Record<string, Fn>, t: Tally, real: WeakMap<object, object>): object {
  const wrapped: Record<string, Fn> = {
    bind: (...a) => timedStatement(stmt.bind!.apply(stmt, a) as Record<string, Fn>, t, real),
  };
  for (const m of ['all', 'first', 'raw', 'run'])
    wrapped[m] = async (...a) => {
      const t0 = Date.now();
      try {
        return await stmt[m]!.apply(stmt, a);
      } finally {
        t.ms += Date.now() - t0;
        t.calls++;
      }
    };
  real.set(wrapped, stmt);
  return wrapped;
}

function timedD1(db: Record<string, Fn>, t: Tally): Env['DB'] {
  const real = new WeakMap<object, object>();
  return {
    prepare: (sql: string) => timedStatement(db.prepare!.call(db, sql) as Record<string, Fn>, t, real),
    batch: async (stmts: object[]) => {
      const t0 = Date.now();
      try {
        return await db.batch!.call(
          db,
          stmts.map((s) => real.get(s) ?? s),
        );
      } finally {
        t.ms += Date.now() - t0;
        t.calls++;
      }
    },
    exec: (q: string) => db.exec!.call(db, q),
    dump: () => db.dump!.call(db),
  } as unknown as Env['DB'];
}

/** the tally of the request being answered (the bench sends one request at a time) */
let tally: Tally = { ms: 0, calls: 0 };
let db: Env['DB'] | undefined;

export default {
  async fetch(request: Request, env: Env, ctx: unknown): Promise<Response> {
    // one timed binding per isolate, as the Worker keeps one app (and store) per isolate
    db ??= timedD1(env.DB as unknown as Record<string, Fn>, {
      get ms() {
        return tally.ms;
      },
      set ms(v) {
        tally.ms = v;
      },
      get calls() {
        return tally.calls;
      },
      set calls(v) {
        tally.calls = v;
      },
    });
    tally = { ms: 0, calls: 0 };
    const r = await worker.fetch(request, { ...env, DB: db }, ctx);
    const out = new Response(r.body, r);
    out.headers.set('Server-Timing', `d1;dur=${tally.ms};desc="${tally.calls} calls"`);
    return out;
  },
};
