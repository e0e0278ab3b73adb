// Which schema version a SQLite file has: drizzle's migration record (`__drizzle_migrations`, a row per applied
// migration) against this version's db/migrations. Version N: the journal's first N migrations are applied.
import type Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from './sqlite.ts';

export interface SchemaVersion {
  /** this version's schema: its number (migrations in the journal) and the last migration's tag */
  ours: { version: number; tag: string };
  /** the file's version: how many of our migrations it has, in order from the first (0: none) */
  version: number;
  /** the tag of the file's last known migration ('' when none) */
  tag: string;
  /** applied migrations this version does not know (a newer or different mt-arena), by `created_at` */
  unknown: { hash: string; createdAt: number }[];
  /** no migration record at all: names of the tables the file holds (empty: a new, empty database) */
  unrecorded?: string[];
}

interface Known {
  tag: string;
  when: number;
  hash: string;
}

let known: Known[] | undefined;

function ourMigrations(): Known[] {
  if (known) return known;
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const files = readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR });
  known = journal.entries.map((e, i) => ({ tag: e.tag, when: e.when, hash: files[i]!.hash }));
  return known;
}

/** The schema version of an open database (read only: nothing is written). */
export function schemaVersion(sqlite: Database.Database): SchemaVersion {
  const ms = ourMigrations();
  const ours = { version: ms.length, tag: ms.at(-1)?.tag ?? '' };
  const tables = (
    sqlite
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
  if (!tables.includes('__drizzle_migrations'))
    return { ours, version: 0, tag: '', unknown: [], unrecorded: tables };
  const rows = sqlite
    .prepare('select hash, created_at as createdAt from __drizzle_migrations order by created_at')
    .all() as { hash: string; createdAt: number }[];
  const ok = (r: { hash: string; createdAt: number }) =>
    ms.some((m) => m.when === Number(r.createdAt) && m.hash === r.hash);
  let version = 0;
  while (version < ms.length && rows.some((r) => Number(r.createdAt) === ms[version]!.when && ok(r)))
    version++;
  return {
    ours,
    version,
    tag: version ? ms[version - 1]!.tag : '',
    unknown: rows.filter((r) => !ok(r)).map((r) => ({ hash: r.hash, createdAt: Number(r.createdAt) })),
  };
}
