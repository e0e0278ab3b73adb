// Opening the database file for a command, checked first: a bad file gets one message naming it and what to do,
// never a stack. Read-only commands open it read-only (no -wal/-shm), so a read-only published copy can be served.
import { accessSync, closeSync, constants, existsSync, openSync, readSync, statSync } from 'node:fs';
import { ArenaError } from '../core/types.ts';
import { schemaVersion } from '../storage/schema-version.ts';
import { openSqliteStore, publishedFrom, type SqliteStore } from '../storage/sqlite.ts';

export interface OpenOptions {
  /** refuse a missing file instead of creating an empty database */
  mustExist?: boolean;
  /** open read-only: the command only reads (implies mustExist) */
  readonly?: boolean;
  /** the command (`serve --annotate`) writes what only the source keeps: a published copy is refused */
  source?: string;
}

const HEADER = 'SQLite format 3\u0000';
/** files (with their -wal) up to this size get a full `PRAGMA quick_check` on open */
const QUICK_CHECK_MAX_BYTES = 256 << 20;

/** What is wrong with the file before SQLite sees it (not a database, truncated), or undefined. */
function checkFile(file: string): string | undefined {
  const st = statSync(file);
  if (st.isDirectory()) return 'is a directory, not a database file';
  if (st.size === 0) return undefined;
  const head = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  let n: number;
  try {
    n = readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (n < HEADER.length || head.toString('latin1', 0, HEADER.length) !== HEADER)
    return 'is not an SQLite database (no SQLite header); --db names the database file, e.g. ./arena.db';
  if (n < 100) return `is truncated (${st.size} bytes, less than an SQLite header)`;
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
    return 'is corrupted (invalid page size in its header)';
  if (st.size % pageSize !== 0)
    return `is truncated (${st.size} bytes is not a whole number of ${pageSize}-byte pages)`;
  // the header's page count is valid when its "version-valid-for" number equals the change counter
  const pages = head.readUInt32BE(28);
  if (
    pages > 0 &&
    head.readUInt32BE(92) === head.readUInt32BE(24) &&
    st.size < pages * pageSize &&
    !existsSync(`${file}-wal`)
  )
    return `is truncated (${st.size} bytes; its header says ${pages * pageSize})`;
  return undefined;
}

/** An SQLite error while opening or checking, as a message about the file. */
function describe(file: string, e: unknown): ArenaError {
  const code = (e as { code?: string }).code ?? '';
  const msg = (e as Error).message ?? String(e);
  const what =
    code === 'SQLITE_NOTADB'
      ? 'is not an SQLite database'
      : code.startsWith('SQLITE_CORRUPT')
        ? `is corrupted (${msg}); restore it from a copy or re-import`
        : code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
          ? 'is locked by another process (a running `arena run`, `refresh` or an open sqlite3 shell); try again when it has finished'
          : code.startsWith('SQLITE_READONLY')
            ? 'is read-only (file or folder permissions, or a read-only disk): this command writes to it; read-only commands such as `standings` and `serve` work on it'
            : code.startsWith('SQLITE_CANTOPEN')
              ? 'cannot be opened (check that its folder exists and is writable)'
              : code.startsWith('SQLITE_IOERR')
                ? `cannot be read (${msg})`
                : `cannot be used (${code ? `${code}: ` : ''}${msg})`;
  return new ArenaError(`${file}: ${what}`, { file }, { cause: e });
}

/** How many migrations the file still needs; refuses a schema no migration of this version brings up to date. */
function pendingMigrations(file: string, store: SqliteStore) {
  const v = schemaVersion(store.sqlite);
  const ours = `version ${v.ours.version}, ${v.ours.tag}`;
  if (v.unknown.length) {
    const ids = v.unknown.map((u) => `${u.hash.slice(0, 12)} of ${when(u.createdAt)}`).join(', ');
    throw new ArenaError(
      `${file} was written by a newer mt-arena (its schema has ${v.unknown.length} migration(s) this version does not know: ${ids}; this version's schema is ${ours}): open it with that newer mt-arena (upgrade: git pull && npm install), or re-import its data into a new database`,
      { file },
    );
  }
  if (v.unrecorded?.length)
    throw new ArenaError(
      v.unrecorded.includes('games')
        ? `${file} has mt-arena tables but no record of its schema version (no __drizzle_migrations table), so it cannot be upgraded safely: re-import its data into a new database`
        : `${file} is an SQLite database but not an mt-arena one (its tables: ${v.unrecorded.slice(0, 5).join(', ')}); --db names an mt-arena database, e.g. ./arena.db`,
      { file },
    );
  return {
    count: v.ours.version - v.version,
    empty: v.version === 0, // a new database, not an older one
    from: `version ${v.version} (${v.tag || 'empty'})`,
    to: ours,
  };
}

const when = (ms: number) =>
  Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : String(ms);

/** Open the database for a command, checked; read-only commands refuse a missing file instead of creating one. */
export function openCheckedStore(file: string, opts: OpenOptions = {}): SqliteStore {
  if (file === ':memory:') return openSqliteStore(file);
  const exists = existsSync(file);
  if ((opts.mustExist || opts.readonly) && !exists)
    throw new ArenaError(`${file}: no such database (create it with \`arena import ...\`)`, { file });
  if (exists) {
    const bad = checkFile(file);
    if (bad) throw new ArenaError(`${file} ${bad}`, { file });
    const from = opts.source && statSync(file).size > 0 ? publishedFrom(file) : undefined;
    if (from)
      throw new ArenaError(
        `${file} is a copy published from ${from} and replaced at every publish, so what \`arena ${opts.source}\` writes would be lost; run it on the source: arena ${opts.source} --db ${from}`,
        { file },
      );
  }
  const empty = exists && statSync(file).size === 0;
  // a read command never writes: not even the schema into an empty file
  if (empty && opts.readonly)
    throw new ArenaError(
      `${file} is empty (0 bytes), not an mt-arena database yet; create it with \`arena import ...\``,
      { file },
    );
  let readonly = !!opts.readonly;
  let upgrade: ReturnType<typeof pendingMigrations> | undefined;
  let store: SqliteStore | undefined;
  try {
    if (!readonly && exists && !empty) {
      // a newer schema is refused before this version's migrations touch it
      const peek = openSqliteStore(file, { readonly: true });
      try {
        const p = pendingMigrations(file, peek);
        if (p.count > 0 && !p.empty) upgrade = p;
      } finally {
        peek.sqlite.close();
      }
    }
    if (readonly) {
      store = openSqliteStore(file, { readonly: true });
      const pending = pendingMigrations(file, store);
      if (pending.count > 0) {
        // an older file: migrate it when it may be written, else say what to do
        store.sqlite.close();
        store = undefined;
        if (!writable(file))
          throw new ArenaError(
            `${file} was written by an older mt-arena (${pending.count} schema migration(s) pending) and is read-only; open it once with a write command (e.g. \`arena import\`)`,
            { file },
          );
        readonly = false;
        upgrade = pending;
      }
    }
    store ??= openSqliteStore(file);
    if (upgrade)
      process.stderr.write(`arena: ${file}: upgraded its schema from ${upgrade.from} to ${upgrade.to}\n`);
    // quick_check reads every page: a large file is left to the header checks and SQLite's errors on use
    const bytes = [file, `${file}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
    const check =
      bytes <= QUICK_CHECK_MAX_BYTES
        ? (store.sqlite.pragma('quick_check', { simple: false }) as { quick_check: string }[])
        : [{ quick_check: 'ok' }];
    if (check[0]?.quick_check !== 'ok')
      throw new ArenaError(
        `${file} is corrupted (${check
          .slice(0, 3)
          .map((r) => r.quick_check)
          .join('; ')}); restore it from a copy or re-import`,
        { file },
      );
    if (
      readonly &&
      !(
        store.sqlite
          .prepare("select count(*) n from sqlite_master where type = 'table' and name = 'games'")
          .get() as { n: number }
      ).n
    )
      throw new ArenaError(`${file} is an SQLite database but not an mt-arena one (no games table)`, {
        file,
      });
    return store;
  } catch (e) {
    if (store?.sqlite.open) store.sqlite.close();
    if (e instanceof ArenaError) throw e;
    throw describe(file, e);
  }
}

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
