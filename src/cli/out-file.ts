// Output files of commands (--out, --chart, export folders): never the database itself, and written atomically.
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ArenaError } from '../core/types.ts';
import { databaseFileOf } from '../storage/same-file.ts';

/** Refuse an output path that is the database `db` or one of its -wal/-shm/-journal files. */
export function refuseDatabaseOutput(out: string, db: string | undefined, flag = '--out'): void {
  if (db === undefined) return;
  const hit = databaseFileOf(out, db);
  if (hit)
    throw new ArenaError(
      `${flag} ${out} is ${hit === db ? 'the database' : `the database's ${hit.slice(db.length + 1)} file`} (${db}); writing there would destroy it: choose another file`,
      { file: out },
    );
}

/** Write `out` through `write(tmp)`, then rename `tmp` over it: a failure leaves `out` untouched. */
export async function writeOutputFile<T>(
  out: string,
  db: string | undefined,
  write: (tmp: string) => T | Promise<T>,
  flag = '--out',
): Promise<T> {
  refuseDatabaseOutput(out, db, flag);
  const tmp = join(
    dirname(resolve(out)),
    `.${basename(out)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    const r = await write(tmp);
    renameSync(tmp, out);
    return r;
  } catch (e) {
    rmSync(tmp, { force: true });
    if (e instanceof ArenaError) throw e;
    const why = (e as { code?: string }).code ?? (e as Error).message;
    throw new ArenaError(`${out}: cannot write (${why})`, { file: out }, { cause: e });
  }
}
