// Stored reports (src/reports/site/stored.ts): rebuilt exactly when the commands that change games change them,
// never otherwise; a missing one is computed once in the background with a "being updated" page meanwhile.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/web/app.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { arenaOk, OWN_QA, playOwn, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';

interface Built {
  computed: number;
  read: number;
  removed: number;
}
interface Row {
  view: string;
  params: string;
  builtAt: number;
  digest: string;
}

const rebuild = async (db: string) =>
  JSON.parse(await arenaOk(['reports', '--rebuild', '--db', db, '--json'])) as Built;
const index = async (db: string) => JSON.parse(await arenaOk(['reports', '--db', db, '--json'])) as Row[];
/** the "reports: N recomputed, M current" line a writing command ends with (undefined: none) */
const recomputed = (stderr: string) => {
  const m = /reports: (\d+) recomputed, (\d+) current/.exec(stderr);
  return m ? { computed: Number(m[1]), read: Number(m[2]) } : undefined;
};
const AUTH = { headers: { Authorization: 'Bearer t' } };
const ofJudge = (rows: Row[], judge: string) =>
  rows.filter((r) => r.view === 'leaderboard' && r.params.includes(`|${judge}:`));
const key = (x: Row) => `${x.view} ${x.params}`;
/** the reports, without the row every write writes again: when the last build ran */
const reports = (rows: Row[]) => rows.filter((r) => r.view !== '_state');
/** what starts the parameters of every report (`bootstrap/1000|`) */
const optionsTagOf = (rows: Row[]) => {
  const p = reports(rows)[0]!.params;
  return p.slice(0, p.indexOf('|') + 1);
};
/** the stored body of one report, as JSON */
const body = async (db: string, view: string, params: string): Promise<unknown> => {
  const store = openSqliteStore(db, { readonly: true });
  try {
    const [row] = await store.reports.get([{ view, params }]);
    return JSON.parse(row!.body) as unknown;
  } finally {
    await store.close();
  }
};
/** the matches a stored leaderboard counts (wins, losses, ties and errors of every model, each match twice) */
const battles = async (db: string, params: string) =>
  (
    (await body(db, 'leaderboard', params)) as { win: number; loss: number; tie: number; error: number }[]
  ).reduce((s, r) => s + r.win + r.loss + r.tie + r.error, 0) / 2;

describe('stored reports on the write path', () => {
  const dir = tmpDir('arena-reports-');
  const db = join(dir, 'site.db');
  let all = 0;
  let srv: OpenAIServer;

  /** `arena run` of `judge` among `models` on our own questions, turn 1; exit 0; returns its stderr. */
  const play = async (judge: string, models: string) => {
    const r = await runArena([
      'run',
      '--db',
      db,
      '--judge',
      judge,
      '--models',
      models,
      ...OWN_QA,
      '--turns',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(0);
    return r.stderr;
  };
  /** `arena reparse --judge judge --parser parser`: how many verdicts changed, and its stderr */
  const reparse = async (judge: string, parser: string) => {
    const r = await runArena(['reparse', '--db', db, '--judge', judge, '--parser', parser]);
    expect(r.code, r.stderr).toBe(0);
    return { changed: Number(/ (\d+) verdict\(s\) changed/.exec(r.stdout)![1]), stderr: r.stderr };
  };
  /**
   * `judge`'s leaderboards were rebuilt for new data, the reports across judges too, and every other judge's
   * left as they were (the same rows: same digest, same build time)
   */
  const expectRebuiltFor = (before: Row[], after: Row[], judge: string) => {
    const was = new Map(before.map((x) => [key(x), x]));
    const mine = ofJudge(after, judge);
    expect(mine.length).toBeGreaterThan(0);
    for (const row of mine) expect(row.digest).not.toBe(was.get(key(row))?.digest);
    const others = after.filter((r) => r.view === 'leaderboard' && !mine.includes(r));
    expect(others.length).toBeGreaterThan(0);
    for (const row of others) expect(row).toEqual(was.get(key(row)));
    const agreement = (rows: Row[]) => rows.find((x) => x.view === 'agreement')!.digest;
    expect(agreement(after)).not.toBe(agreement(before));
  };

  /**
   * Exactly the reports `rebuilt` picks were recomputed (a new digest), every other one left as it was (the same
   * row: digest, build time); the writing command's own line (`cmd`) counts the same.
   */
  const expectOnlyRebuilt = (
    before: Row[],
    after: Row[],
    rebuilt: (r: Row) => boolean,
    cmd?: { stderr: string },
  ) => {
    const was = new Map(before.map((x) => [key(x), x]));
    expect(after.map(key).sort()).toEqual(before.map(key).sort());
    const mine = after.filter(rebuilt);
    expect(mine.length).toBeGreaterThan(0);
    for (const row of mine) expect(row.digest, key(row)).not.toBe(was.get(key(row))!.digest);
    for (const row of after.filter((r) => !rebuilt(r))) expect(row, key(row)).toEqual(was.get(key(row)));
    if (cmd)
      expect(recomputed(cmd.stderr)).toEqual({ computed: mine.length, read: after.length - mine.length });
  };
  beforeAll(async () => {
    srv = await startOpenAIServer({ verdict: 'hash' });
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
    await playOwn(db, 'mock/a', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
    // replies that quote the output format before the verdict: FastChat's parser and `last` read them differently
    await playOwn(db, 'mock/quoting', 'arena-sage,arena-echo', ['--turns', '1']);
  }, 180_000);
  afterAll(async () => srv?.close());

  it('a write on a database that holds no reports builds them all; --rebuild then finds them current', async () => {
    const sql = new Database(db);
    sql.exec('DELETE FROM reports');
    sql.close();
    const first = recomputed(await play('mock/longer', 'arena-sage,arena-echo'))!;
    expect(first.computed).toBeGreaterThan(20);
    expect(first.read).toBe(0);
    all = first.computed;
    expect(await rebuild(db)).toMatchObject({ computed: 0, read: all });
  }, 180_000);

  it('a run that plays nothing, an import of the same answers and a re-parse that changes nothing recompute nothing', async () => {
    expect(recomputed(await play('mock/longer', 'arena-sage,arena-echo,arena-swift'))).toEqual({
      computed: 0,
      read: all,
    });
    const i = await runArena(['import', 'answers', '--db', db, 'questions/answers/arena-sage.jsonl']);
    expect(i.code, i.stderr).toBe(0);
    expect(recomputed(i.stderr)).toEqual({ computed: 0, read: all });
    const p = await reparse('mock/a', 'fastchat');
    expect(p.changed).toBe(0);
    expect(recomputed(p.stderr)).toEqual({ computed: 0, read: all });
  }, 180_000);

  it("a run of one judge recomputes that judge's reports and the ones across judges, not the other judges'", async () => {
    const before = await index(db);
    const n = recomputed(await play('mock/longer', 'arena-sage,arena-drift'))!;
    expect(n.computed).toBeGreaterThan(0);
    expect(n.computed).toBeLessThan(all + 20);
    expectRebuiltFor(before, await index(db), 'mock/longer');
  }, 180_000);

  it("a re-parse that changes verdicts recomputes that judge's reports and the ones across judges; again, nothing", async () => {
    const before = await index(db);
    const p = await reparse('mock/quoting', 'fastchat');
    expect(p.changed).toBeGreaterThan(0);
    expect(recomputed(p.stderr)!.computed).toBeGreaterThan(0);
    const after = await index(db);
    expectRebuiltFor(before, after, 'mock/quoting');
    // the same parser again changes no verdict: every report is current
    const again = await reparse('mock/quoting', 'fastchat');
    expect(again.changed).toBe(0);
    expect(recomputed(again.stderr)!.computed).toBe(0);
    expect(reports(await index(db))).toEqual(reports(after));
  }, 180_000);

  it("a refresh that plays a new judge's games builds its reports and recomputes those across judges; one that plays nothing, none", async () => {
    const config = join(dir, 'refresh.json');
    writeFileSync(
      config,
      JSON.stringify({
        db,
        questions: [join(REPO_ROOT, 'questions', 'arena.jsonl')],
        prompts: [join(REPO_ROOT, 'questions', 'judge_prompts.jsonl')],
        answers: [join(REPO_ROOT, 'questions', 'answers')],
        promptSet: 'arena',
        questionIds: [1001, 1002],
        turns: [1],
        judges: [{ id: 'openai/judge', baseURL: srv.url, price: { input: 1, output: 2 }, concurrency: 4 }],
      }),
    );
    const before = await index(db);
    expect(ofJudge(before, 'openai/judge')).toEqual([]);
    const r = await runArena(['refresh', '--config', config]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/OK; .*; 24 played, 0 failed/);
    expect(srv.completions()).toBe(24);
    expect(recomputed(r.stderr)!.computed).toBeGreaterThan(0);
    const after = await index(db);
    expectRebuiltFor(before, after, 'openai/judge');
    // nothing new to play: no call, no report recomputed, the same rows
    const again = await runArena(['refresh', '--config', config]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/OK; .*; 0 played/);
    expect(srv.completions()).toBe(24);
    expect(recomputed(again.stderr)!.computed).toBe(0);
    expect(reports(await index(db))).toEqual(reports(after));
  }, 180_000);

  it("prune removes the judge's reports and recomputes those across judges", async () => {
    const r = await runArena(['prune', '--db', db, '--judge', 'mock/a']);
    expect(r.code, r.stderr).toBe(0);
    expect(recomputed(r.stderr)!.computed).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/reports: .* removed/);
    expect(ofJudge(await index(db), 'mock/a')).toEqual([]);
    expect((await rebuild(db)).computed).toBe(0);
  }, 180_000);

  it('an import that changes an answer recomputes exactly the reports that read answers; the same file again, none', async () => {
    const lines = readFileSync(join(REPO_ROOT, 'questions', 'answers', 'arena-sage.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const first = JSON.parse(lines[0]!) as { choices: { turns: string[] }[] };
    first.choices[0]!.turns[0] += '\n\nP.S. Bring gloves.';
    const file = join(dir, 'arena-sage.jsonl');
    writeFileSync(file, `${[JSON.stringify(first), ...lines.slice(1)].join('\n')}\n`);
    const before = reports(await index(db));
    const i = await runArena(['import', 'answers', '--db', db, file]);
    expect(i.code, i.stderr).toBe(0);
    // style control (the answers' length and markdown), the judge board and the rating variants (their lengths); the
    // games are the same, so every leaderboard, matrix, model page, agreement, health and checkpoint report stays
    expectOnlyRebuilt(
      before,
      reports(await index(db)),
      (r) => r.view === 'style' || r.view === 'judgeBoard' || r.view === 'variants',
      i,
    );
    const again = await runArena(['import', 'answers', '--db', db, file]);
    expect(again.code, again.stderr).toBe(0);
    expect(recomputed(again.stderr)).toEqual({ computed: 0, read: before.length });
  }, 180_000);

  it('an import that moves a question to another category recomputes exactly the reports by category and the model pages', async () => {
    // the same questions from a file of another name: the file a question came from is not a figure
    const same = join(dir, 'renamed.jsonl');
    copyFileSync(join(REPO_ROOT, 'questions', 'arena.jsonl'), same);
    const r = await runArena(['import', 'questions', '--db', db, same]);
    expect(r.code, r.stderr).toBe(0);
    expect(recomputed(r.stderr)).toEqual({ computed: 0, read: reports(await index(db)).length });
    const lines = readFileSync(join(REPO_ROOT, 'questions', 'arena.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const first = JSON.parse(lines[0]!) as { question_id: number; category: string };
    expect(first).toMatchObject({ question_id: 1001, category: 'writing' });
    first.category = 'roleplay';
    const file = join(dir, 'arena.jsonl');
    writeFileSync(file, `${[JSON.stringify(first), ...lines.slice(1)].join('\n')}\n`);
    const tag = optionsTagOf(await index(db));
    const writing = `${tag}mock/longer::writing`;
    const roleplay = `${tag}mock/longer::roleplay`;
    const was = { writing: await battles(db, writing), roleplay: await battles(db, roleplay) };
    const before = reports(await index(db));
    const i = await runArena(['import', 'questions', '--db', db, file]);
    expect(i.code, i.stderr).toBe(0);
    // the leaderboards, matrices and single-answer tables of one category, and the model pages (a row per category)
    const byCategory = (r: Row) =>
      (['leaderboard', 'matrix', 'single'].includes(r.view) && !r.params.endsWith(':')) || r.view === 'model';
    expectOnlyRebuilt(before, reports(await index(db)), byCategory, i);
    // the figures moved: the judge's matches on the question left writing for roleplay
    const store = openSqliteStore(db, { readonly: true });
    const games = await store.games.list({ judge: 'mock/longer', questionId: 1001, kind: 'pairwise' });
    await store.close();
    const moved = new Set(
      games.map((g) => `${g.match.turn} ${[g.match.model1, g.match.model2].sort().join(' ')}`),
    );
    expect(moved.size).toBeGreaterThan(0);
    expect(await battles(db, writing)).toBe(was.writing - moved.size);
    expect(await battles(db, roleplay)).toBe(was.roleplay + moved.size);
  }, 180_000);

  it('a checkpoint recorded recomputes only the checkpoints report', async () => {
    const before = reports(await index(db));
    const store = openSqliteStore(db);
    try {
      await store.checkpoints.save({
        series: 'sft',
        name: 'step-1',
        step: 1,
        model: 'arena-echo',
        baseline: 'arena-sage',
        generation: { kind: 'imported', file: 'arena-echo.jsonl' },
      });
    } finally {
      await store.close();
    }
    const r = await rebuild(db);
    expect(r).toMatchObject({ computed: 1, read: before.length - 1 });
    const after = reports(await index(db));
    expectOnlyRebuilt(before, after, (x) => x.view === 'checkpoints');
    const [series] = (await body(db, 'checkpoints', after.find((x) => x.view === 'checkpoints')!.params)) as {
      series: string;
      rows: unknown[];
    }[];
    expect(series).toMatchObject({ series: 'sft' });
    expect(series!.rows.length).toBeGreaterThan(0);
  }, 180_000);
});

describe('the Node site over stored reports', () => {
  it('serves stored reports without computing; a missing one is computed once, however many requests ask', async () => {
    const db = join(tmpDir('arena-reports-serve-'), 'site.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
    await rebuild(db);
    const store = openSqliteStore(db, { readonly: true });
    try {
      const app = createApp({ store, adminToken: 't' });
      for (const p of [
        '/',
        '/judges',
        '/matrix',
        '/health',
        '/style',
        '/variants',
        '/models/arena-sage?judge=mock/longer',
      ])
        expect((await app.request(p)).status, p).toBe(200);
      const counts = async () =>
        (await (await app.request('/api/admin/reports', AUTH)).json()) as Record<string, number>;
      expect(await counts()).toMatchObject({ computed: 0, missing: 0, stale: 0 });
      // a report no build made (other bootstrap rounds): four requests at once wait for one computation (a first
      // visitor gets the page, not an error), and every later request reads it
      const other = createApp({ store, bootstrapRounds: 10, adminToken: 't' });
      const rs = await Promise.all(
        [1, 2, 3, 4].map(() => other.request('/api/leaderboard?judge=mock/longer')),
      );
      const bodies = await Promise.all(rs.map((r) => r.text()));
      for (const r of rs) expect(r.status).toBe(200);
      expect(new Set(bodies).size).toBe(1);
      const c = (await (await other.request('/api/admin/reports', AUTH)).json()) as Record<string, number>;
      expect(c).toMatchObject({ computed: 1 });
    } finally {
      await store.close();
    }
  }, 180_000);

  it('a model page with no report stored answers: its nested leaderboards are computed, not queued behind it', async () => {
    const db = join(tmpDir('arena-reports-nested-'), 'site.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turns', '1']);
    const store = openSqliteStore(db, { readonly: true });
    try {
      const app = createApp({ store });
      const r = await app.request('/models/arena-sage?judge=mock%2Flonger');
      expect(r.status).toBe(200);
      expect(await r.text()).toContain('arena-echo');
    } finally {
      await store.close();
    }
  }, 180_000);

  it('a page over stale rows shows what the data says: its reports and the nested ones they read are computed', async () => {
    const dir = tmpDir('arena-reports-nested-stale-');
    const before = join(dir, 'before.db');
    const db = join(dir, 'site.db');
    await playOwn(before, 'mock/longer', 'arena-sage,arena-echo', ['--turns', '1']);
    await rebuild(before);
    copyFileSync(before, db);
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
    // the reports (and their _state) of the data before the third model: every row is stale
    const sql = new Database(db);
    sql.exec(
      `ATTACH '${before}' AS b; DELETE FROM main.reports; INSERT INTO main.reports SELECT * FROM b.reports`,
    );
    sql.close();
    const path = '/api/model-categories?judge=mock/longer&model=arena-sage';
    const store = openSqliteStore(db, { readonly: true });
    try {
      const fresh = await (await createApp({ store }).request(path)).json();
      const stale = await (await createApp({ store, reports: 'read' }).request(path)).json();
      expect(stale).not.toEqual(fresh);
      // as `arena serve` computes it: the model's report is not kept from the stale leaderboards it read
      expect(await (await createApp({ store }).request(path)).json()).toEqual(fresh);
    } finally {
      await store.close();
    }
  }, 180_000);
});
