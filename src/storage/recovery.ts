// Paid verdicts that the database could not take (a full disk) are written beside it (or to a fallback folder)
// as JSONL, one file per run (temp file + rename), and the next `arena run` stores them before it plans, so no
// paid call is lost or paid for again.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ArenaError, type Game } from '../core/types.ts';
import type { RunRecord, Store } from './store.ts';

interface Place {
  dir: string;
  prefix: string;
}

/** Where the spill files of `dbFile` go: beside it first, then in `fallbackDir` (named by its path). */
function places(dbFile: string, fallbackDir: string): Place[] {
  const abs = resolve(dbFile);
  const tag = createHash('sha256').update(abs).digest('hex').slice(0, 12);
  return [
    { dir: dirname(abs), prefix: `${basename(abs)}.unstored-` },
    { dir: fallbackDir, prefix: `arena-unstored-${tag}-` },
  ];
}

/** Write `games` (paid, not stored) and their run's record where they can be; returns the file. */
export async function spillGames(
  dbFile: string,
  fallbackDir: string,
  games: Game[],
  run: RunRecord,
): Promise<string> {
  const text = [JSON.stringify({ run }), ...games.map((game) => JSON.stringify({ game }))].join('\n') + '\n';
  let last: unknown;
  for (const p of places(dbFile, fallbackDir)) {
    const file = join(p.dir, `${p.prefix}${run.id}.jsonl`);
    const tmp = `${file}.tmp`;
    try {
      writeFileSync(tmp, text);
      renameSync(tmp, file);
      return file;
    } catch (e) {
      last = e;
      rmSync(tmp, { force: true });
    }
  }
  throw last;
}

/** The spill files of `dbFile` not stored yet (beside it and in `fallbackDir`). */
export function spilledFiles(dbFile: string, fallbackDir: string): string[] {
  return places(dbFile, fallbackDir).flatMap((p) => {
    let names: string[];
    try {
      names = readdirSync(p.dir);
    } catch {
      return [];
    }
    return names
      .filter((n) => n.startsWith(p.prefix) && n.endsWith('.jsonl'))
      .sort()
      .map((n) => join(p.dir, n));
  });
}

/**
 * Store what earlier runs spilled (a game stored meanwhile is left as it is), their records failed, their leases
 * freed; each file removed once stored. Returns how many games each file had.
 */
export async function restoreSpilled(
  store: Store,
  dbFile: string,
  fallbackDir: string,
): Promise<{ file: string; games: number }[]> {
  const done: { file: string; games: number }[] = [];
  for (const file of spilledFiles(dbFile, fallbackDir)) {
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const games: Game[] = [];
    const runs: RunRecord[] = [];
    lines.forEach((l, i) => {
      let v: { game?: Game; run?: RunRecord };
      try {
        v = JSON.parse(l) as typeof v;
      } catch (e) {
        throw new ArenaError(
          `${file}:${i + 1}: not JSON (${(e as Error).message}); it holds paid verdicts, keep it`,
          {
            file,
            line: i + 1,
          },
        );
      }
      if (v.game) games.push(v.game);
      else if (v.run) runs.push(v.run);
    });
    try {
      const stored = games.length ? await store.games.insertMany(games) : [];
      // the spilled run has ended: its leases on games it never called would only hold the next run up
      for (const r of runs) {
        await store.runs.save(withRestored(r, games, stored));
        await store.leases.release(r.id);
      }
    } catch (e) {
      throw new ArenaError(
        `the ${games.length} paid verdict(s) in ${file} could not be stored (${(e as Error).message}); the file is kept: free some space and rerun`,
        { file },
        { cause: e },
      );
    }
    rmSync(file, { force: true });
    done.push({ file, games: games.length });
  }
  return done;
}

/** The spilled run's record with the games just restored under it counted (its ledger is its stored games). */
function withRestored(run: RunRecord, games: Game[], stored: boolean[]): RunRecord {
  const mine = games.filter((g, i) => stored[i] && g.runId === run.id);
  const sum = (f: (g: Game) => number | null | undefined) => mine.reduce((n, g) => n + (f(g) ?? 0), 0);
  const priced = mine.some((g) => g.cost != null);
  return {
    ...run,
    played: run.played + mine.length,
    tokensIn: run.tokensIn + sum((g) => g.tokensIn),
    tokensOut: run.tokensOut + sum((g) => g.tokensOut),
    ...(priced ? { cost: (run.cost ?? 0) + sum((g) => g.cost) } : {}),
  };
}
