// Push a local SQLite database's rows to D1: SQL that empties every table of the schema and inserts
// the local rows again, run through `wrangler d1 execute --file` (local or remote). The D1 database
// must already have the same migrations (`wrangler d1 migrations apply`).
import type Database from 'better-sqlite3';

/** Tables that belong to the migration tools, not to the data. */
const SKIP = /^(sqlite_|__drizzle_migrations$|d1_migrations$|_cf_)/;
/** D1 refuses statements longer than 100 KB; stay well below it. */
const MAX_STATEMENT = 90_000;

export function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`[publish] cannot write the number ${v} as SQL`);
    return String(v);
  }
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`;
  if (v instanceof Uint8Array) return `X'${Buffer.from(v).toString('hex')}'`;
  throw new Error(`[publish] cannot write a ${typeof v} as SQL`);
}

/** The data tables, parents before children (the schema has no foreign keys, so name order is stable). */
export function dataTables(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name).filter((n) => !SKIP.test(n));
}

/**
 * The statements that make a D1 database hold exactly the rows of `db`: one DELETE per table, then
 * multi-row INSERTs of at most ~90 KB each. Yields statements (each ending in `;\n`).
 */
export function* publishSql(db: Database.Database): Generator<string> {
  const tables = dataTables(db);
  for (const t of tables) yield `DELETE FROM ${quoteId(t)};\n`;
  for (const t of tables) {
    const cols = (db.prepare(`PRAGMA table_info(${quoteId(t)})`).all() as { name: string }[]).map((c) => c.name);
    const head = `INSERT INTO ${quoteId(t)} (${cols.map(quoteId).join(', ')}) VALUES\n`;
    let values: string[] = [];
    let size = head.length;
    for (const row of db.prepare(`SELECT ${cols.map(quoteId).join(', ')} FROM ${quoteId(t)}`).raw().iterate() as Iterable<unknown[]>) {
      const v = `(${row.map(sqlLiteral).join(', ')})`;
      if (values.length && size + v.length + 2 > MAX_STATEMENT) {
        yield `${head}${values.join(',\n')};\n`;
        values = [];
        size = head.length;
      }
      values.push(v);
      size += v.length + 2;
    }
    if (values.length) yield `${head}${values.join(',\n')};\n`;
  }
}

function quoteId(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
