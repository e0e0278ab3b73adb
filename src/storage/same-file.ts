// Whether a path names a database's own files (the database, its -wal, -shm or -journal), by what the paths point
// at rather than how they are spelled: `./a.db`, `a.db`, a symlink to it or a hard link of it are all the database.
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The absolute path a file has, or would have once created: symlinks resolved as far as they exist. */
function canonicalPath(file: string): string {
  const abs = resolve(file);
  try {
    return realpathSync(abs);
  } catch {
    try {
      return join(realpathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

/** Whether two paths are the same file: the same canonical path, or (both existing) the same inode. */
function sameFile(a: string, b: string): boolean {
  if (canonicalPath(a) === canonicalPath(b)) return true;
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** The file of database `db` (itself, its -wal, -shm or -journal) that `file` is, or undefined when it is none. */
export function databaseFileOf(file: string, db: string): string | undefined {
  if (db === ':memory:' || file === ':memory:') return undefined;
  const real = canonicalPath(db);
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    for (const base of new Set([db, real])) if (sameFile(file, `${base}${suffix}`)) return `${db}${suffix}`;
  return undefined;
}
