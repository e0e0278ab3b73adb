// `npm start` (`arena start`) on an empty database imports the release (MTBENCH_DIR) and serves the leaderboard;
// the first start is the run's shared one (tests/support/npm-start.ts), which other files copy.
import Database from 'better-sqlite3';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaOk, serveArena, spawnArena, tmpDir, type ServingArena } from '../support/cli.ts';
import { npmStartDatabase, startEnv, type StartedDatabase } from '../support/npm-start.ts';
import { MTBENCH_DIR, MTBENCH_GPT4_ORDER, noMtbench, skipWhy } from '../support/materials.ts';
import type { Standing } from '../../src/core/types.ts';

const DIR = MTBENCH_DIR;
skipWhy('start', noMtbench('the release `arena start` imports'));

/** `arena start ...args` until it prints the URL it listens on. */
function start(args: string[], env: Record<string, string> = {}): Promise<ServingArena> {
  // LLMBar's sets are left out of these later starts (the first one's import of them is read by
  // tests/cli/start-judges.test.ts): they are about the release
  return serveArena(['start', ...args], {
    env: { ...startEnv(), JUDGE_SETS_DIR: 'none', ...env },
    timeoutMs: 120_000,
  });
}

/** The cells of every row of the first table whose caption mentions the judge and pairwise-all. */
function tableRows(html: string, judge: string): string[][] {
  const table = [...html.matchAll(/<table[\s\S]*?<\/table>/g)]
    .map((m) => m[0])
    .find((t) => new RegExp(`<caption[^>]*>[^<]*\\b${judge}\\b[^<]*pairwise-all`).test(t));
  if (!table) throw new Error(`no pairwise-all table for judge ${judge} in the page`);
  return [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((r) =>
    [...r[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, '').trim()),
  );
}

/** The release's rows (beside LLMBar's labelled pairs, when the first start imported them: `all`). */
function counts(db: string): { release: Record<string, number>; all: Record<string, number> } {
  const sqlite = new Database(db, { readonly: true });
  try {
    const n = (table: string, where = '') =>
      (sqlite.prepare(`SELECT count(*) AS n FROM ${table} ${where}`).get() as { n: number }).n;
    const ofRelease = 'WHERE question_id IN (SELECT id FROM questions WHERE pair_set IS NULL)';
    return {
      release: {
        questions: n('questions', 'WHERE pair_set IS NULL'),
        answers: n('answers', ofRelease),
        votes: n('votes', ofRelease),
        prompts: n('prompts'),
      },
      all: { questions: n('questions'), answers: n('answers'), votes: n('votes'), prompts: n('prompts') },
    };
  } finally {
    sqlite.close();
  }
}

describe.skipIf(!DIR)('arena start (npm start)', { timeout: 240_000 }, () => {
  // the first start is the run's shared one (tests/support/npm-start.ts): a real process on an empty database,
  // with this file's environment; what it printed and served is read back here
  let first: StartedDatabase;
  beforeAll(async () => {
    first = await npmStartDatabase();
  }, 420_000);

  it('on an empty database imports the release and serves the leaderboard; a second start does not import again', async () => {
    const db = first.db;
    expect(first.stdout).toMatch(
      /imported the MT-Bench release from .*: 80 questions, 480 answers, 5755 votes/,
    );
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const page = first.served['/leaderboard'];
    expect(page.status).toBe(200);
    expect(page.contentType).toMatch(/^text\/html/);
    const html = page.body;
    const rows = tableRows(html, 'gpt-4');
    const row = (model: string) => {
      const r = rows.find((cells) => cells.includes(model));
      if (!r) throw new Error(`no row for ${model}`);
      const k = r.indexOf(model);
      return r.slice(k + 1, k + 4).map(Number);
    };
    // FastChat's published pairwise-all table (mt-bench-protocol.md §9.2): win, loss, tie
    expect(row('gpt-4')).toEqual([617, 45, 138]);
    expect(row('claude-v1')).toEqual([445, 115, 240]);
    expect(row('llama-13b')).toEqual([20, 617, 163]);

    const api = first.served['/api/standings?judge=gpt-4'];
    expect(api.status).toBe(200);
    expect(api.contentType).toMatch(/^application\/json/);
    const json = JSON.parse(api.body) as Standing[];
    expect(json.map((r) => r.model)).toEqual(MTBENCH_GPT4_ORDER);
    expect(json[0]).toMatchObject({
      model: 'gpt-4',
      win: 617,
      loss: 45,
      tie: 138,
      error: 0,
      winRate: 0.77125,
      lossRate: 0.05625,
      winRateAdjusted: 0.8575,
    });
    expect(json[5]).toMatchObject({
      model: 'llama-13b',
      win: 20,
      loss: 617,
      tie: 163,
      winRateAdjusted: 0.126875,
    });
    expect(first.exitCode).toBe(0);

    const before = counts(db);
    expect(before.release).toEqual({ questions: 80, answers: 480, votes: 5755, prompts: 8 });
    const second = await start(['--db', db, '--port', '0']);
    try {
      expect(second.stdout()).not.toMatch(/imported/);
      const api = await fetch(`${second.url}/api/standings?judge=gpt-4`);
      expect(((await api.json()) as { win: number }[])[0]).toMatchObject({ win: 617 });
    } finally {
      expect(await second.stop()).toBe(0);
    }
    expect(counts(db)).toEqual(before);
  });

  it('a database file without questions counts as empty: the release is imported into it', async () => {
    const db = join(tmpDir(), 'empty.db');
    new Database(db).close(); // an empty SQLite file, as `touch` or another tool would leave it
    // what is tested is the import into the empty file: the study and the stored reports (a bootstrap of every
    // leaderboard) are the first test's, so this start skips them
    const s = await start(['--db', db, '--port', '0', '--intervals', 'sandwich'], {
      JUDGE_LLAMA2_DIR: 'none',
    });
    try {
      expect(s.stdout()).toMatch(/imported the MT-Bench release .*80 questions/);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('a port that is taken is a clear error, exit 1', async () => {
    const db = join(tmpDir(), 'q.db');
    // in a child process, as the serve below: this file has no other use for the CLI's modules in its own graph
    await arenaOk(['import', 'questions', 'questions/arena.jsonl', '--db', db], { spawn: true });
    const taken = createServer((_, res) => res.end('taken'));
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const { port } = taken.address() as AddressInfo;
    try {
      const { code, stderr: err } = await spawnArena(['serve', '--db', db, '--port', String(port)]).done;
      expect(code).toBe(1);
      expect(err.trim().split('\n')).toHaveLength(1);
      expect(err).toMatch(
        new RegExp(`^arena: port ${port} on 127\\.0\\.0\\.1 is in use; choose another with --port`),
      );
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });
});
