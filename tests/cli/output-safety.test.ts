// Outputs that are the database (or its -wal/-shm) by any spelling are refused in one line, the database unchanged;
// outputs go through a temporary file and a rename; publishing over a copy a reader holds gives a sound copy.
import { createHash } from 'node:crypto';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { copyDatabase, openSqliteStore } from '../../src/storage/sqlite.ts';
import { arenaOk, playOwn, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

/** exit 1 with one line naming the output as the database, no stack; the database unchanged and readable */
async function refused(args: string[], db: string, says = /is the database/) {
  const before = sha(db);
  const r = await runArena(args);
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(says);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(sha(db)).toBe(before);
  await arenaOk(['standings', '--db', db, '--judge', 'mock/longer']);
}

describe('outputs that are the database', { timeout: 300_000 }, () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = tmpDir('arena-out-');
    db = join(dir, 'arena.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turns', '1']);
  }, 180_000);

  it('`publish --out` the database itself, by another spelling, a symlink or a hard link, is refused', async () => {
    await refused(['publish', '--db', db, '--out', db], db);
    await refused(
      ['publish', '--db', db, '--out', relative(REPO_ROOT, join(dir, '.', 'x', '..', 'arena.db'))],
      db,
    );
    const sym = join(dir, 'sym.sql');
    symlinkSync(db, sym);
    await refused(['publish', '--db', db, '--out', sym], db);
    const hard = join(dir, 'hard.sql');
    linkSync(db, hard);
    await refused(['publish', '--db', db, '--out', hard], db);
    await refused(['publish', '--db', db, '--out', `${db}-wal`], db, /the database's wal file/);
    await refused(['publish', '--db', db, '--out', `${db}-shm`], db, /the database's shm file/);
  });

  it('`review export --out` and `export fastchat --out` into the database are refused', async () => {
    await refused(['review', 'export', '--db', db, '--judge', 'mock/longer', '--out', db], db);
    const out = join(dir, 'fastchat');
    await arenaOk(['export', 'fastchat', '--db', db, '--judge', 'mock/longer', '--out', out]);
    const [name] = readdirSync(out);
    // the export folder already holds a hard link to the database under the name the export writes
    const trap = tmpDir('arena-out-trap-');
    linkSync(db, join(trap, name!));
    await refused(['export', 'fastchat', '--db', db, '--judge', 'mock/longer', '--out', trap], db);
  });

  it('`publish --out` writes through a temporary file: the SQL arrives whole and nothing else is left', async () => {
    const out = join(dir, 'pub', 'site.sql');
    mkdirSync(join(dir, 'pub'));
    writeFileSync(out, 'old');
    const text = await arenaOk(['publish', '--db', db, '--out', out]);
    expect(text).toMatch(/^wrote \d+ statements to /);
    expect(readFileSync(out, 'utf8')).toMatch(/INSERT INTO/i);
    expect(readdirSync(join(dir, 'pub'))).toEqual(['site.sql']);
  });
});

describe('a refresh publishing a copy', { timeout: 300_000 }, () => {
  const config = (dir: string, sqlite: string) => {
    const file = join(dir, 'refresh.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          db: 'nightly.db',
          questions: [join(REPO_ROOT, 'questions/arena.jsonl')],
          prompts: [join(REPO_ROOT, 'questions/judge_prompts.jsonl')],
          answers: [join(REPO_ROOT, 'questions/answers')],
          promptSet: 'arena',
          judges: [{ id: 'mock/longer', concurrency: 4 }],
          modes: [{ mode: 'pairwise-all', models: ['arena-echo', 'arena-sage'] }],
          publish: { sqlite },
        },
        null,
        2,
      ),
    );
    return file;
  };

  it('`publish.sqlite` naming the database (any spelling) is refused as a config error; the database stays', async () => {
    const dir = tmpDir('arena-pub-self-');
    for (const same of ['nightly.db', './nightly.db', `${dir}/x/../nightly.db`, 'nightly.db-wal']) {
      const cfg = config(dir, same);
      const r = await runArena(['refresh', '--config', cfg]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/refresh\.json:\d+: field "publish\.sqlite": .* is the database/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    // a sound refresh, then the same config again: the database still opens and holds its games
    await arenaOk(['refresh', '--config', config(dir, 'public.db')]);
    const before = sha(join(dir, 'nightly.db'));
    const r = await runArena(['refresh', '--config', config(dir, 'nightly.db')]);
    expect(r.code).toBe(1);
    expect(sha(join(dir, 'nightly.db'))).toBe(before);
    await arenaOk(['standings', '--db', join(dir, 'nightly.db'), '--judge', 'mock/longer']);
  });

  it('a copy published over an older copy that a reader keeps open (its WAL beside it) is the new copy', async () => {
    const dir = tmpDir('arena-pub-wal-');
    const src = openSqliteStore(join(dir, 'src.db'));
    src.sqlite.exec("create table marker(x); insert into marker values ('new')");
    const target = join(dir, 'public.db');
    const old = new Database(target);
    old.pragma('journal_mode = WAL');
    old.pragma('wal_autocheckpoint = 0');
    old.exec("create table stale(y); create index stale_y on stale(y); insert into stale values ('old')");
    const reader = new Database(target, { readonly: true });
    reader.prepare('select count(*) from stale').get();
    old.close();
    expect(existsSync(`${target}-wal`)).toBe(true);
    try {
      copyDatabase(src, target);
      const fresh = new Database(target, { readonly: true });
      expect(fresh.pragma('quick_check', { simple: true })).toBe('ok');
      expect(fresh.prepare('select x from marker').all()).toEqual([{ x: 'new' }]);
      fresh.close();
      expect(() => copyDatabase(src, join(dir, 'src.db'))).toThrow(/is the database being copied/);
    } finally {
      reader.close();
      await src.close();
    }
  });
});
