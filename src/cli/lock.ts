// One process at a time on a database for a long job (`arena refresh`): a lock file created exclusively ('wx') beside
// it, holding the owner's pid; a lock whose process is gone is taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ArenaError } from '../core/types.ts';
import { pidAlive } from './liveness.ts';

/** Take `${db}.${name}.lock`; returns the function that gives it back. `:memory:` needs no lock. */
export function takeLock(db: string, name: string, what = name): () => void {
  if (db === ':memory:') return () => {};
  const file = `${db}.${name}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new ArenaError(
          `${file}: cannot create the ${what} lock (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
          { file },
          { cause: e },
        );
      const pid = holder(file);
      // a lock being written (empty) or held by a live process is respected; so is one taken between our two tries
      if (pid === undefined || pidAlive(pid) || attempt > 0)
        throw new ArenaError(
          `another ${what} ${pid ? `(pid ${pid}) ` : ''}is running on ${db} (lock ${file}; delete it only if no such process runs)`,
          { file },
        );
      rmSync(file, { force: true });
    }
  }
  return () => {
    if (holder(file) === process.pid) rmSync(file, { force: true });
  };
}

/** The pid in a lock file; undefined when it cannot be read or holds no pid (yet). */
function holder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
