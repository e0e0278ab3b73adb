// Push a local SQLite database's rows to D1 (already migrated): SQL that empties every table and inserts the
// local rows again, run through `wrangler d1 execute --file`.
import type Database from 'better-sqlite3';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArenaError } from '../core/types.ts';
import { D1_TIMEOUT_MS, d1Execute, type D1Database } from './wrangler.ts';

/** Tables of the migration tools, and of this machine or the site alone (leases, request counters, copy marker). */
const SKIP = /^(sqlite_|__drizzle_migrations$|d1_migrations$|_cf_|leases$|rate_limits$|published_copy$)/;
/** D1 refuses statements over 100 KB; short ones also keep wrangler's statement splitter (quadratic) cheap. */
const MAX_STATEMENT = 10_000;

/** Characters a SQL file cannot carry verbatim through wrangler (NUL ends SQLite's text): a string with one goes as its bytes. */
const RISKY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u2028\u2029]/;

export function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`[publish] cannot write the number ${v} as SQL`);
    return String(v);
  }
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string')
    return RISKY.test(v)
      ? `CAST(X'${Buffer.from(v, 'utf8').toString('hex')}' AS TEXT)`
      : `'${v.replace(/'/g, "''")}'`;
  if (v instanceof Uint8Array) return `X'${Buffer.from(v).toString('hex')}'`;
  throw new Error(`[publish] cannot write a ${typeof v} as SQL`);
}

/**
 * The tables the site writes (/annotate), merged so a publish never erases what was recorded there. `keep`: the
 * rows left in D1; `id`: whether the file's ids go with its rows; `conflict`: an INSERT meeting a row D1 has.
 */
const MERGED: Record<string, { keep: string; id: boolean; conflict: string }> = {
  // a redeemed invite stays redeemed unless the file invited again or revoked (IIF: wrangler reads a CASE's END badly)
  annotators: {
    keep: 'all',
    id: true,
    conflict:
      'ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name", "token_hash" = excluded."token_hash", ' +
      '"created_at" = excluded."created_at", "revoked_at" = excluded."revoked_at", ' +
      '"used_at" = IIF("annotators"."token_hash" = excluded."token_hash", ' +
      'COALESCE("annotators"."used_at", excluded."used_at"), excluded."used_at"), ' +
      '"session_hash" = IIF("annotators"."token_hash" = excluded."token_hash" AND excluded."revoked_at" IS NULL, ' +
      '"annotators"."session_hash", NULL)',
  },
  annotations: { keep: 'all', id: true, conflict: 'ON CONFLICT DO NOTHING' },
  votes: { keep: `"source" = 'annotate'`, id: false, conflict: 'ON CONFLICT DO NOTHING' },
};

/**
 * The statements that make a D1 database hold exactly the rows of `db`: a DELETE per table, then multi-row
 * INSERTs. A row too long for one statement is inserted with its long texts empty, then each is appended in pieces.
 */
export function* publishSql(db: Database.Database): Generator<string> {
  // no foreign keys in the schema: name order will do
  const tables = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  )
    .map((r) => r.name)
    .filter((n) => !SKIP.test(n));
  for (const t of tables) {
    const keep = MERGED[t]?.keep;
    if (keep !== 'all') yield `DELETE FROM ${quoteId(t)}${keep ? ` WHERE NOT (${keep})` : ''};\n`;
  }
  for (const t of tables) {
    const merged = MERGED[t];
    const info = (
      db.prepare(`PRAGMA table_info(${quoteId(t)})`).all() as { name: string; pk: number }[]
    ).filter((c) => merged?.id !== false || c.pk === 0);
    const cols = info.map((c) => c.name);
    const keys = info.filter((c) => c.pk > 0).map((c) => cols.indexOf(c.name));
    const head = `INSERT INTO ${quoteId(t)} (${cols.map(quoteId).join(', ')}) VALUES\n`;
    const tail = merged ? `\n${merged.conflict}` : '';
    let values: string[] = [];
    let size = head.length + tail.length;
    for (const row of db
      .prepare(
        `SELECT ${cols.map(quoteId).join(', ')} FROM ${quoteId(t)}${merged?.id === false ? ' ORDER BY rowid' : ''}`,
      )
      .raw()
      .iterate() as Iterable<unknown[]>) {
      let lits = row.map(sqlLiteral);
      let v = `(${lits.join(', ')})`;
      let long: number[] = [];
      if (head.length + tail.length + bytes(v) + 2 > MAX_STATEMENT) {
        if (!keys.length)
          throw new Error(
            `[publish] a row of ${t} is longer than one D1 statement and the table has no primary key to append to`,
          );
        long = lits
          .map((l, i) => (typeof row[i] === 'string' && bytes(l) > LONG_TEXT && !keys.includes(i) ? i : -1))
          .filter((i) => i >= 0);
        lits = lits.map((l, i) => (long.includes(i) ? "''" : l));
        v = `(${lits.join(', ')})`;
      }
      const n = bytes(v);
      if (values.length && size + n + 2 > MAX_STATEMENT) {
        yield `${head}${values.join(',\n')}${tail};\n`;
        values = [];
        size = head.length + tail.length;
      }
      values.push(v);
      size += n + 2;
      if (!long.length) continue;
      yield `${head}${values.join(',\n')}${tail};\n`;
      values = [];
      size = head.length + tail.length;
      const where = keys.map((k) => `${quoteId(cols[k]!)} = ${lits[k]}`).join(' AND ');
      for (const i of long)
        for (const piece of pieces(row[i] as string))
          yield `UPDATE ${quoteId(t)} SET ${quoteId(cols[i]!)} = ${quoteId(cols[i]!)} || ${sqlLiteral(piece)} WHERE ${where};\n`;
    }
    if (values.length) yield `${head}${values.join(',\n')}${tail};\n`;
  }
}

/** D1's limit is on bytes: a character outside ASCII takes 2 to 4 */
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** A text literal longer than this is appended in pieces when its row does not fit one statement. */
const LONG_TEXT = 8_000;
/** UTF-16 units per appended piece: at most 3 UTF-8 bytes each, 6 hex digits: under 75 KB a statement. */
const PIECE = 12_000;

/** `s` in pieces of at most PIECE code units, never splitting a surrogate pair. */
function* pieces(s: string): Generator<string> {
  for (let i = 0; i < s.length;) {
    let end = Math.min(s.length, i + PIECE);
    const c = s.charCodeAt(end - 1);
    if (end < s.length && c >= 0xd800 && c <= 0xdbff) end--;
    yield s.slice(i, end);
    i = end;
  }
}

function quoteId(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Write publishSql(db) to `file`; returns how many statements. */
export async function writePublishSql(db: Database.Database, file: string): Promise<number> {
  const out = createWriteStream(file);
  let n = 0;
  try {
    for (const stmt of publishSql(db)) {
      n++;
      if (!out.write(stmt)) await once(out, 'drain');
    }
  } finally {
    out.end();
    await once(out, 'finish');
  }
  return n;
}

/** `output`: where wrangler's output goes (default stderr, leaving the caller's stdout its own). */
export type D1Target = D1Database & { output?: 'stdout' | 'stderr' };

/** Make the D1 database hold exactly the rows of `db` (publishSql); how many statements ran. */
export async function publishToD1(
  db: Database.Database,
  t: D1Target,
  log: (m: string) => void = () => {},
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'arena-publish-'));
  try {
    const file = join(dir, 'publish.sql');
    const n = await writePublishSql(db, file);
    const r = await d1Execute(
      t,
      ['--file', file, '--yes'],
      // 10 s more per MB of SQL
      { stdout: t.output, timeoutMs: D1_TIMEOUT_MS + (statSync(file).size / 1e6) * 10_000 },
      { log, show: true },
    );
    if (r.status !== 0)
      throw new ArenaError(
        `[publish] wrangler d1 execute failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`,
      );
    return n;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
