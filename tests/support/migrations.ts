// A SQLite file taken back to the schema before one of our migrations, so that opening it migrates again: what
// that migration and the later ones create (tables, indexes, added columns) is dropped, and their records removed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { MIGRATIONS_DIR } from '../../src/storage/sqlite.ts';

/** Undo the migration `tag` and every later one on `d` (their data moves are the caller's to undo first). */
export function undoMigrationsFrom(d: Database.Database, tag: string): void {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at < 1) throw new Error(`no migration ${tag} after the first in the journal`);
  for (const later of journal.entries.slice(at).reverse()) {
    const sql = readFileSync(join(MIGRATIONS_DIR, `${later.tag}.sql`), 'utf8');
    for (const [, kind, name] of sql.matchAll(/CREATE (?:UNIQUE )?(TABLE|INDEX) `([^`]+)`/g))
      d.prepare(`DROP ${kind} IF EXISTS "${name}"`).run();
    for (const [, table, column] of sql.matchAll(/ALTER TABLE `([^`]+)` ADD `([^`]+)`/g))
      d.prepare(`ALTER TABLE "${table}" DROP COLUMN "${column}"`).run();
  }
  d.prepare('DELETE FROM __drizzle_migrations WHERE created_at >= ?').run(journal.entries[at]!.when);
}
