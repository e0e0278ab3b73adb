// `arena checkpoints run --watch` judges checkpoints as they are added (by `checkpoints add` or a file renamed into
// `watch.dir`), reports each once, stops on SIGTERM/SIGINT; the server's log shows no game paid twice.
import { execFileSync } from 'node:child_process';
import {
  renameSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runArena, spawnArena, tmpDir, type SpawnedArena } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer, type RequestLogEntry } from '../support/openai-server.ts';
import { games, readDb } from './helpers.ts';
import { until } from '../support/until.ts';

const Q = join(REPO_ROOT, 'questions');
const answers = (model: string) => join(Q, 'answers', `${model}.jsonl`);
// 3 questions x 2 turns x 2 orders: 12 games per checkpoint
const QUESTIONS = [1001, 1002, 1003];
const GAMES = 12;

const chats = (log: RequestLogEntry[]) => log.filter((e) => e.path === '/v1/chat/completions');

interface Judged {
  checkpoint: string;
  step: number;
  rows: {
    judge: string;
    checkpoint: string;
    model: string;
    winRate: { mean: number; n: number };
    vsPrevious: { mean: number; against: string } | null;
  }[];
}

const judgedLines = (w: SpawnedArena) =>
  w
    .stdout()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Judged);

function writeConfig(dir: string, url: string, checkpoints: object[], concurrency = 8): string {
  const cfg = join(dir, 'checkpoints.json');
  writeFileSync(
    cfg,
    JSON.stringify(
      {
        db: 'ckpt.db',
        series: 'sft',
        questions: [join(Q, 'arena.jsonl')],
        prompts: [join(Q, 'judge_prompts.jsonl')],
        promptSet: 'arena',
        questionIds: QUESTIONS,
        baseline: { model: 'arena-sage', answers: answers('arena-sage') },
        checkpoints,
        watch: { dir: 'incoming', pattern: '^step-(\\d+)\\.jsonl$' },
        judges: [{ id: 'openai/judge', baseURL: url, concurrency }],
        resamples: 200,
      },
      null,
      2,
    ),
  );
  return cfg;
}

const watch = (cfg: string) =>
  spawnArena(['checkpoints', 'run', '--config', cfg, '--watch', '--poll', '0.2', '--json']);

describe('arena checkpoints run --watch', { timeout: 120_000 }, () => {
  let server: OpenAIServer;
  let slow: OpenAIServer;
  beforeAll(async () => {
    [server, slow] = await Promise.all([
      startOpenAIServer({ verdict: 'longer' }),
      startOpenAIServer({ verdict: 'longer', latencyMs: 300 }),
    ]);
  });
  afterAll(async () => Promise.all([server?.close(), slow?.close()]));

  it('judges each new checkpoint once, as it appears, and reports it at once; a restart pays nothing', async () => {
    const dir = tmpDir('arena-ckpt-watch-');
    const cfg = writeConfig(dir, server.url, []);
    const w = watch(cfg);
    await until(() => w.stderr().includes('watching'), 'the watcher to start');

    const added = await runArena([
      'checkpoints',
      'add',
      '--config',
      cfg,
      '--name',
      's1',
      '--step',
      '100',
      '--answers',
      answers('arena-echo'),
    ]);
    expect(added.code, added.stderr).toBe(0);
    await until(() => judgedLines(w).length === 1, 'the first checkpoint to be reported');
    expect(chats(server.log)).toHaveLength(GAMES);

    // a training loop writes under another name and renames into place; the pattern does not match the first name
    mkdirSync(join(dir, 'incoming'));
    copyFileSync(answers('arena-swift'), join(dir, 'incoming', 'step-200.jsonl.part'));
    renameSync(join(dir, 'incoming', 'step-200.jsonl.part'), join(dir, 'incoming', 'step-200.jsonl'));
    await until(() => judgedLines(w).length === 2, 'the second checkpoint to be reported');
    // a few more polls: nothing is judged again
    await new Promise((r) => setTimeout(r, 1000));
    w.child.kill('SIGTERM');
    const done = await w.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(
      'watch stopped: 2 checkpoint(s) judged, 0 answers generated, 24 games played, 0 failed',
    );

    const [first, second] = judgedLines(w);
    expect([first!.checkpoint, first!.step, second!.checkpoint, second!.step]).toEqual([
      's1',
      100,
      'step-200',
      200,
    ]);
    expect(first!.rows).toHaveLength(1);
    expect(first!.rows[0]!.vsPrevious).toBeNull();
    expect(second!.rows[0]!.vsPrevious!.against).toBe('s1');
    // the win rates are the standings' adjusted win rates, read from the same games by another path
    const standings = JSON.parse(
      (
        await runArena([
          'standings',
          '--db',
          join(dir, 'ckpt.db'),
          '--mode',
          'pairwise-baseline',
          '--baseline',
          'arena-sage',
          '--json',
        ])
      ).stdout,
    ) as { model: string; winRateAdjusted: number }[];
    for (const row of [first!.rows[0]!, second!.rows[0]!]) {
      expect(row.winRate.n).toBe(3);
      expect(row.winRate.mean).toBeCloseTo(standings.find((s) => s.model === row.model)!.winRateAdjusted, 12);
    }
    expect(second!.rows[0]!.vsPrevious!.mean).toBeCloseTo(
      second!.rows[0]!.winRate.mean - first!.rows[0]!.winRate.mean,
      12,
    );

    // every game paid once: one request per prompt, one stored game per request
    const sent = chats(server.log);
    expect(sent).toHaveLength(2 * GAMES);
    expect(new Set(sent.map((e) => e.hash)).size).toBe(2 * GAMES);
    expect(games(join(dir, 'ckpt.db'))).toHaveLength(2 * GAMES);

    // a new watcher reports both again from what is stored, and pays for nothing
    const again = watch(cfg);
    await until(() => judgedLines(again).length === 2, 'the restarted watcher to report both');
    again.child.kill('SIGTERM');
    expect((await again.done).code).toBe(0);
    expect(judgedLines(again)).toEqual(judgedLines(w));
    expect(chats(server.log)).toHaveLength(2 * GAMES);
  });

  it('SIGINT while judging drops the games in flight, releases their leases, and a rerun pays only the rest', async () => {
    const dir = tmpDir('arena-ckpt-watch-');
    const cfg = writeConfig(
      dir,
      slow.url,
      [{ name: 's1', step: 100, model: 'arena-echo', answers: answers('arena-echo') }],
      2,
    );
    const w = watch(cfg);
    await until(() => chats(slow.log).length >= 3, 'judging to be under way');
    w.child.kill('SIGINT');
    const done = await w.done;
    expect(done.code, done.stderr).toBe(130);
    expect(done.stderr).toContain('stopping the watch (games in flight are dropped, their leases released)');
    expect(done.stderr).toContain(
      'watch stopped while judging (rerun to play the rest): 0 checkpoint(s) judged',
    );
    expect(judgedLines(w)).toEqual([]);
    const db = join(dir, 'ckpt.db');
    expect(readDb(db, (x) => x.prepare('select count(*) as n from leases').get())).toEqual({ n: 0 });
    expect(readDb(db, (x) => x.prepare('select status from runs').all())).toEqual([
      { status: 'interrupted' },
    ]);
    const stored = games(db).length;
    const sentBefore = chats(slow.log).length;
    expect(stored).toBeLessThan(GAMES);

    const r = await runArena(['checkpoints', 'run', '--config', cfg, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(games(db)).toHaveLength(GAMES);
    const sent = chats(slow.log);
    // the rerun sent only the games not stored; only the ones dropped in flight (at most the concurrency) went twice
    expect(sent.length - sentBefore).toBe(GAMES - stored);
    const twice = sent.length - new Set(sent.map((e) => e.hash)).size;
    expect(twice).toBe(sentBefore - stored);
    expect(twice).toBeLessThanOrEqual(2);
  });

  it('survives every file problem: a partial file, a duplicate step, a file replaced, a FIFO', async () => {
    const dir = tmpDir('arena-ckpt-watch-');
    const cfg = writeConfig(dir, server.url, []);
    const inc = join(dir, 'incoming');
    mkdirSync(inc);
    const at = (name: string) => join(inc, name);
    // written elsewhere and renamed into place, as the docs ask
    const put = (name: string, text: string, time?: number) => {
      writeFileSync(at(`${name}.part`), text);
      if (time !== undefined) utimesSync(at(`${name}.part`), time, time);
      renameSync(at(`${name}.part`), at(name));
    };
    const echo = readFileSync(answers('arena-echo'), 'utf8');
    const partial = echo.split('\n')[0]! + '\n'; // question 1001 only
    put('step-1000.jsonl', partial);
    const refusedPartial = `${at('step-1000.jsonl')}: answers of "step-1000" miss question 1002, 1003`;
    const count = (text: string, part: string) => text.split(part).length - 1;

    // refused, said once, and the watcher goes on; a restart does not die on it either
    for (const attempt of [1, 2]) {
      const w = watch(cfg);
      await until(() => w.stderr().includes(refusedPartial), `the partial file to be refused (${attempt})`);
      await new Promise((r) => setTimeout(r, 1000));
      expect(w.child.exitCode, w.stderr()).toBeNull();
      expect(count(w.stderr(), refusedPartial), w.stderr()).toBe(1);
      w.child.kill('SIGTERM');
      expect((await w.done).code).toBe(0);
    }
    expect(
      readDb(join(dir, 'ckpt.db'), (x) =>
        x.prepare("select count(*) as n from answers where model = 'step-1000'").get(),
      ),
    ).toEqual({ n: 0 });

    const w = watch(cfg);
    await until(() => w.stderr().includes(refusedPartial), 'the partial file to be refused');
    // a second file for step 1000: neither is judged; step 2000 still is
    put('step-01000.jsonl', echo);
    put('step-2000.jsonl', readFileSync(answers('arena-swift'), 'utf8'));
    await until(() => judgedLines(w).some((l) => l.checkpoint === 'step-2000'), 'step-2000 to be judged');
    const dup = `${at('step-01000.jsonl')} and ${at('step-1000.jsonl')} both have the step 1000`;
    expect(w.stderr()).toContain(dup);
    await new Promise((r) => setTimeout(r, 1000));
    expect(count(w.stderr(), dup), w.stderr()).toBe(1);
    expect(judgedLines(w).map((l) => l.checkpoint)).toEqual(['step-2000']);

    // the stray removed and the partial file replaced by a whole one: judged
    rmSync(at('step-01000.jsonl'));
    put('step-1000.jsonl', echo);
    await until(() => judgedLines(w).some((l) => l.checkpoint === 'step-1000'), 'step-1000 to be judged');

    // new answers renamed over a judged file: judged again, from the new answers
    const before = judgedLines(w).find((l) => l.checkpoint === 'step-2000')!.rows[0]!.winRate.mean;
    const drift = readFileSync(answers('arena-drift'), 'utf8');
    const past = Math.floor(Date.now() / 1000) - 60; // whole seconds: any file system keeps them exactly
    put('step-2000.jsonl', drift, past);
    await until(
      () => judgedLines(w).filter((l) => l.checkpoint === 'step-2000').length === 2,
      'step-2000 to be judged again',
    );
    const again = judgedLines(w).filter((l) => l.checkpoint === 'step-2000')[1]!.rows[0]!;
    const fresh = await runArena(['checkpoints', 'report', '--config', cfg, '--json']);
    const reported = (JSON.parse(fresh.stdout) as { rows: Judged['rows'] }).rows.find(
      (r) => r.checkpoint === 'step-2000',
    )!;
    expect(again.winRate.mean).toBe(reported.winRate.mean);
    expect(again.winRate.mean).not.toBe(before);
    expect(chats(server.log).length).toBeGreaterThanOrEqual(3 * GAMES);
    // and again with answers of the same size and the same time of change (a copy that keeps times): a new file
    put('step-2000.jsonl', drift.replace(' the ', ' The '), past);
    await until(
      () => judgedLines(w).filter((l) => l.checkpoint === 'step-2000').length === 3,
      'step-2000 to be judged a third time',
    );

    // a FIFO behind a symlink is refused without being opened; SIGTERM still stops the watcher at once
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    symlinkSync(join(dir, 'pipe'), at('step-3000.jsonl'));
    await until(
      () => w.stderr().includes(`${at('step-3000.jsonl')}: not a regular file`),
      'the FIFO to be refused',
    );
    const t0 = Date.now();
    w.child.kill('SIGTERM');
    const done = await w.done;
    expect(done.code, done.stderr).toBe(0);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});
