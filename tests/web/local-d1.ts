// A local D1 (workerd, as `wrangler dev` and `wrangler d1 execute --local` run it) over wrangler's `--persist-to`
// folder, reached from Node by one HTTP request per query or batch; wrangler's getPlatformProxy makes a round trip
// per `prepare` and `bind` (a 650-statement batch: 15-28 s on the loaded 2-core machine).
import type { AnyD1Database } from 'drizzle-orm/d1';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/cli.ts';

/** wrangler.toml's D1 database id: the key of its local SQLite file under `<persist-to>/v3/d1` */
const DATABASE_ID = '00000000-0000-0000-0000-000000000000';
/** wrangler.toml's compatibility date */
const COMPATIBILITY_DATE = '2025-09-01';

/** A bound parameter as JSON: undefined, bigints and bytes are tagged, so D1 sees exactly what Node bound. */
type WireParam = { u: 1 } | { n: string } | { b: number[] } | { v: unknown };
interface WireStatement {
  sql: string;
  params?: WireParam[];
}
type WireQuery =
  | { op: 'exec'; sql: string }
  | { op: 'batch'; statements: WireStatement[] }
  | { op: 'all' | 'run'; statement: WireStatement }
  | { op: 'first'; statement: WireStatement; column?: string }
  | { op: 'raw'; statement: WireStatement; options?: { columnNames?: boolean } };

/**
 * The Worker that owns the binding: it runs each query on env.DB and answers its result as JSON (non-finite
 * numbers tagged), or the error D1 threw (name, message and its cause's).
 */
const GATEWAY = `
const decode = (p) => ('u' in p ? undefined : 'n' in p ? BigInt(p.n) : 'b' in p ? new Uint8Array(p.b) : p.v);
const statement = (db, s) => (s.params ? db.prepare(s.sql).bind(...s.params.map(decode)) : db.prepare(s.sql));
const replacer = (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? { $number: String(v) } : v);
const errorOf = (e) => e && { name: e.name, message: e.message, cause: errorOf(e.cause) };
async function run(db, q) {
  if (q.op === 'exec') return db.exec(q.sql);
  if (q.op === 'batch') return db.batch(q.statements.map((s) => statement(db, s)));
  const st = statement(db, q.statement);
  if (q.op === 'first') return q.column === undefined ? st.first() : st.first(q.column);
  if (q.op === 'raw') return q.options === undefined ? st.raw() : st.raw(q.options);
  return q.op === 'run' ? st.run() : st.all();
}
export default {
  async fetch(request, env) {
    const q = await request.json();
    try {
      return new Response(JSON.stringify({ ok: (await run(env.DB, q)) ?? null }, replacer));
    } catch (e) {
      return new Response(JSON.stringify({ error: errorOf(e) }));
    }
  },
};
`;

interface WireError {
  name: string;
  message: string;
  cause?: WireError;
}

function errorFrom(w: WireError): Error {
  const e = new Error(w.message, w.cause ? { cause: errorFrom(w.cause) } : undefined);
  e.name = w.name;
  return e;
}

function wireParam(v: unknown): WireParam {
  if (v === undefined) return { u: 1 };
  if (typeof v === 'bigint') return { n: String(v) };
  if (v instanceof ArrayBuffer) return { b: [...new Uint8Array(v)] };
  if (ArrayBuffer.isView(v)) return { b: [...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)] };
  return { v };
}

type Send = (q: WireQuery) => Promise<unknown>;

/** D1's prepared statement, kept in Node until it runs: its SQL and bound values. */
class Statement {
  constructor(
    private readonly send: Send,
    private readonly sql: string,
    private readonly params?: unknown[],
  ) {}
  bind(...params: unknown[]): Statement {
    return new Statement(this.send, this.sql, params);
  }
  /** what the gateway needs to prepare it again in the Worker */
  wire(): WireStatement {
    return this.params ? { sql: this.sql, params: this.params.map(wireParam) } : { sql: this.sql };
  }
  first(column?: string): Promise<unknown> {
    return this.send({ op: 'first', statement: this.wire(), ...(column === undefined ? {} : { column }) });
  }
  run(): Promise<unknown> {
    return this.send({ op: 'run', statement: this.wire() });
  }
  all(): Promise<unknown> {
    return this.send({ op: 'all', statement: this.wire() });
  }
  raw(options?: { columnNames?: boolean }): Promise<unknown> {
    return this.send({ op: 'raw', statement: this.wire(), ...(options ? { options } : {}) });
  }
}

export interface LocalD1 {
  /** the D1 binding (the API a Worker's env.DB has), for openD1Store or drizzle-orm/d1 */
  db: AnyD1Database;
  dispose(): Promise<void>;
}

/**
 * The local D1 of wrangler.toml's database in the `--persist-to` folder `persistTo` (state in `<persistTo>/v3`),
 * made if missing. Dispose of it before another process (wrangler d1 execute, wrangler dev) opens the folder.
 */
export async function openLocalD1(persistTo: string): Promise<LocalD1> {
  // the miniflare of this wrangler, so that the engine is the one `wrangler dev` runs
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve('wrangler/package.json'));
  const { Miniflare } = fromWrangler('miniflare') as typeof import('miniflare');
  const mf = new Miniflare({
    modules: true,
    script: GATEWAY,
    compatibilityDate: COMPATIBILITY_DATE,
    d1Databases: { DB: DATABASE_ID },
    d1Persist: join(persistTo, 'v3', 'd1'),
    rootPath: REPO_ROOT,
  });
  await mf.ready;
  const send: Send = async (q) => {
    const r = await mf.dispatchFetch('http://d1.local/', { method: 'POST', body: JSON.stringify(q) });
    const answer = JSON.parse(await r.text(), (_k, v: unknown) =>
      v !== null && typeof v === 'object' && '$number' in v ? Number((v as { $number: string }).$number) : v,
    ) as { ok: unknown } | { error: WireError };
    if ('error' in answer) throw errorFrom(answer.error);
    return answer.ok;
  };
  const db = {
    prepare: (sql: string) => new Statement(send, sql),
    batch: (statements: Statement[]) => send({ op: 'batch', statements: statements.map((s) => s.wire()) }),
    exec: (sql: string) => send({ op: 'exec', sql }),
  };
  return { db: db as unknown as AnyD1Database, dispose: () => mf.dispose() };
}
