// `--until-settled` through the real engine and a real SQLite file: a league whose models differ clearly
// (the mock judge prefers the longer answer, and the models' answers differ in length by a wide margin).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTournament } from '../../src/engine/run.ts';
import { runUntilSettled } from '../../src/engine/settle.ts';
import { ensureRunPrompts } from '../../src/importers/builtin.ts';
import { importFiles } from '../../src/importers/import.ts';
import type { JudgeProvider, JudgeRequest } from '../../src/judges/judge.ts';
import { mockJudge } from '../../src/judges/mock.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { OWN, runArena, tmpDir } from '../support/cli.ts';

const MODELS = ['m-short', 'm-mid', 'm-long', 'm-longest'];
const QUESTIONS = 40;
/** 4 models, 40 single-turn questions, 2 orders: 6 × 40 × 2 games in the full plan */
const FULL = 6 * QUESTIONS * 2;

async function league(): Promise<{ store: SqliteStore; file: string }> {
  const dir = tmpDir('arena-settle-');
  const q = join(dir, 'questions.jsonl');
  writeFileSync(
    q,
    Array.from({ length: QUESTIONS }, (_, k) =>
      JSON.stringify({ question_id: 5000 + k, category: 'writing', turns: [`Write about topic ${k}.`] }),
    ).join('\n'),
  );
  const answers = MODELS.map((m, i) => {
    const f = join(dir, `${m}.jsonl`);
    writeFileSync(
      f,
      Array.from({ length: QUESTIONS }, (_, k) =>
        JSON.stringify({
          question_id: 5000 + k,
          model_id: m,
          choices: [{ index: 0, turns: [`${m} on ${k}: ${'word '.repeat(10 * (i + 1) + (k % 7))}`] }],
        }),
      ).join('\n'),
    );
    return f;
  });
  const file = join(dir, 'arena.db');
  const store = openSqliteStore(file);
  await importFiles(store, { questions: [q], answers });
  await ensureRunPrompts(store, ['pairwise-all'], 'arena');
  return { store, file };
}

/** The mock judge, recording every call it answers (a paid call) by its prompt and order. */
function countingJudge(stopAfter?: { calls: number; ctl: AbortController }) {
  const inner = mockJudge('longer');
  const paid: string[] = [];
  const judge: JudgeProvider = {
    id: inner.id,
    async complete(req: JudgeRequest) {
      if (stopAfter && paid.length >= stopAfter.calls) {
        stopAfter.ctl.abort(new Error('interrupted'));
        throw new Error('interrupted');
      }
      const r = await inner.complete(req);
      paid.push(req.user);
      return r;
    },
  };
  return { judge, paid };
}

const common = (store: SqliteStore, judge: JudgeProvider) => ({
  store,
  judge,
  mode: 'pairwise-all' as const,
  models: MODELS,
  turns: [1],
  promptSet: 'arena',
  concurrency: 1,
  flushMs: 0,
});

describe('runUntilSettled', { timeout: 120_000 }, () => {
  it('settles a clearly separated league with fewer calls than the full plan; a full run then pays exactly the rest', async () => {
    const { store } = await league();
    const a = countingJudge();
    const s = await runUntilSettled({ ...common(store, a.judge), round: 24 });
    expect(s.stop).toBe('settled');
    expect(s.planned).toBe(FULL);
    expect(s.paid).toBe(a.paid.length);
    expect(s.stored).toBe(s.paid);
    expect(s.paid).toBeLessThan(FULL / 2);
    expect(s.open).toEqual([]);
    // every rank decided, in the order of the answers' lengths
    expect(Object.fromEntries(s.ranks!.map((r) => [r.model, [r.best, r.worst]]))).toEqual({
      'm-longest': [1, 1],
      'm-long': [2, 2],
      'm-mid': [3, 3],
      'm-short': [4, 4],
    });
    const b = countingJudge();
    const full = await runTournament(common(store, b.judge));
    expect(full.played).toBe(FULL - s.paid);
    expect(b.paid.length).toBe(FULL - s.paid);
    expect(new Set([...a.paid, ...b.paid]).size).toBe(FULL); // no game paid twice
    await store.close();
  });

  it('resumes after an interruption without paying any game twice', async () => {
    const { store } = await league();
    const ctl = new AbortController();
    const a = countingJudge({ calls: 30, ctl });
    const first = await runUntilSettled({ ...common(store, a.judge), round: 24, signal: ctl.signal });
    expect(first.stop).toBe('interrupted');
    expect(a.paid.length).toBe(30);
    const b = countingJudge();
    const second = await runUntilSettled({ ...common(store, b.judge), round: 24 });
    expect(second.stop).toBe('settled');
    const all = [...a.paid, ...b.paid];
    expect(new Set(all).size).toBe(all.length);
    expect(second.stored).toBe(all.length);
    await store.close();
  });

  it('refuses a mode it cannot schedule', async () => {
    const { store } = await league();
    await expect(
      runUntilSettled({
        ...common(store, mockJudge('longer')),
        mode: 'single',
      }),
    ).rejects.toThrow(/pairwise plans only/);
    await store.close();
  });
});

describe('arena run --until-settled', { timeout: 120_000 }, () => {
  const models = ['--models', 'arena-drift,arena-echo,arena-sage,arena-swift'];
  it('says why it stopped and what the full plan costs; the full run then plays only the skipped games', async () => {
    const db = join(tmpDir('arena-settle-cli-'), 'a.db');
    const base = ['run', '--db', db, '--judge', 'mock/longer', ...models, ...OWN];
    const s = await runArena([...base, '--until-settled', '--round', '20']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/^settled: every pair's order is decided/m);
    expect(s.stdout).toMatch(/rank intervals: arena-sage 1, arena-drift 2, arena-swift 3, arena-echo 4/);
    const m = s.stdout.match(/(\d+) judge calls paid now; (\d+) of the full plan's 576 games stored/)!;
    expect(m, s.stdout).not.toBeNull();
    const paid = Number(m[1]);
    expect(paid).toBe(Number(m[2]));
    expect(paid).toBeLessThan(576 / 2);
    expect(s.stderr).toMatch(/^round 1: 20 match\(es\) \(both orders\) over 6 open pair\(s\)/m);
    // settled again: nothing left to do, nothing paid
    const again = await runArena([...base, '--until-settled', '--round', '20']);
    expect(again.stdout).toMatch(/0 round\(s\), 0 judge calls paid now/);
    const full = await runArena(base);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toMatch(new RegExp(`: ${576 - paid} played, 0 failed, ${paid} already stored`));
  });

  it('refuses what it cannot schedule, before touching the database', async () => {
    const db = join(tmpDir('arena-settle-cli-'), 'a.db');
    for (const [extra, msg] of [
      [['--mode', 'single', '--until-settled'], /pairwise-all or pairwise-baseline only/],
      [['--until-settled', '--width', '0.1'], /--width goes with --mode pairwise-baseline/],
      [['--round', '5'], /go with --until-settled/],
      [['--until-settled', '--round', '0'], /--round 0: a whole number from 1 /],
    ] as const) {
      const r = await runArena(['run', '--db', db, '--judge', 'mock/longer', ...models, ...OWN, ...extra]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(msg);
      expect(existsSync(db)).toBe(false);
    }
  });
});
