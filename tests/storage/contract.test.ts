// The Store contract (tests/storage/contract.ts) over every Node adapter: a SQLite file and SQLite in memory.
// The D1 adapter runs the same suite from its own test file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMemoryStore, openSqliteStore } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';
import { ANSWERS, describeStoreContract, makeGame, QUESTIONS, REFERENCES } from './contract.ts';

const dir = tmpDir('arena-store-');
let n = 0;

describeStoreContract('sqlite file', () => openSqliteStore(join(dir, `store-${++n}.db`)));
describeStoreContract('sqlite memory', () => openMemoryStore());

describe('sqlite file specifics', () => {
  it("games.facts reads a judge's games from the covering index alone, never the rows and their text", async () => {
    const store = openSqliteStore(join(dir, 'facts-plan.db'));
    await store.importBundle({ games: [makeGame({ judge: 'j1' }), makeGame({ judge: 'j2' })] });
    const asked: string[] = [];
    const prepare = store.sqlite.prepare.bind(store.sqlite);
    store.sqlite.prepare = ((sql: string) => (asked.push(sql), prepare(sql))) as typeof store.sqlite.prepare;
    expect(await store.games.facts({ judge: 'j1', kind: 'pairwise' })).toHaveLength(1);
    store.sqlite.prepare = prepare;
    const read = asked.find((q) => q.includes('"games"'))!;
    const plan = store.sqlite
      .prepare(`EXPLAIN QUERY PLAN ${read}`)
      .all(...Array.from(read.matchAll(/\?/g), () => 'j1')) as { detail: string }[];
    // a column added to games and not to the index games_facts makes this read walk the table again
    expect(plan.map((p) => p.detail).join('\n')).toMatch(
      /SEARCH games USING COVERING INDEX games_facts \(judge=\?/,
    );
    expect(read).not.toMatch(/system_prompt|user_prompt|"reply"/);
    await store.close();
  });

  it('what one connection wrote, the next one reads (the file is the database)', async () => {
    const file = join(dir, 'reopen.db');
    const g = makeGame();
    const a = openSqliteStore(file);
    await a.importBundle({ questions: { source: 'q.jsonl', items: QUESTIONS }, games: [g] });
    await a.close();
    expect(existsSync(file)).toBe(true);
    const b = openSqliteStore(file, { readonly: true });
    expect(await b.catalog.questions()).toEqual(QUESTIONS);
    expect(await b.games.list()).toEqual([g]);
    await b.close();
  });

  it('JSON columns store exactly the text JSON.stringify wrote before they were typed (and NULL, never the text null)', async () => {
    const store = openSqliteStore(join(dir, 'json-text.db'));
    const settings = {
      temperature: 0,
      maxTokens: 2048,
      canary: 'nonce — ü',
      nested: { b: [1, 2.5], a: null },
    };
    const probs = { A: 0.125, B: 0.75, C: 0.125 };
    const withProbs = makeGame({ judgeSettings: settings, verdictProbs: probs, entropy: 1.06 });
    const without = makeGame({ judgeSettings: settings });
    await store.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      references: REFERENCES,
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
      games: [withProbs],
    });
    await store.games.insert(without); // the prepared insert: a null JSON column stays NULL
    await store.games.insert(makeGame({ verdictProbs: probs }));
    // the group commit's multi-row insert (engine/play/): the same text, and NULL for a game without probabilities
    const grouped = [
      makeGame({ judgeSettings: settings }),
      makeGame({ judgeSettings: settings, verdictProbs: probs }),
    ];
    expect(await store.games.insertMany(grouped)).toEqual([true, true]);
    expect(await store.games.insertMany(grouped)).toEqual([false, false]);
    const runConfig = { models: ['alpha', 'beta'], baseline: undefined, turns: [1, 2], settings };
    await store.runs.save({
      id: 'run-1',
      startedAt: 1,
      judge: 'j',
      mode: 'pairwise-all',
      config: runConfig,
      planned: 1,
      toPlay: 1,
      played: 0,
      failed: 0,
      tokensIn: 0,
      tokensOut: 0,
      status: 'running',
    });
    const summary = {
      line: 'refresh — 🎉',
      played: 3,
      judges: { j: { errorRate: 0.5, inconsistencyRate: null } },
    };
    await store.refreshes.save({
      id: 'r',
      startedAt: 1,
      finishedAt: null,
      status: 'degraded',
      config: { file: 'r.json', config: { db: 'x.db' } },
      summary,
      degraded: ['a "quoted" reason'],
      cost: 0,
    });
    await store.refreshes.save({
      id: 'r2',
      startedAt: 2,
      finishedAt: null,
      status: 'ok',
      config: { file: 'r.json', config: {} },
      summary: {},
      degraded: null,
      cost: 0,
    });
    const generation = {
      kind: 'llama-cpp' as const,
      gguf: '/m.gguf',
      lora: null,
      maxTokens: 64,
      seed: 42,
      temperatures: { math: 0, writing: 0.7 },
    };
    await store.checkpoints.save({
      series: 's',
      name: 'n',
      step: 1,
      model: 's@n',
      baseline: 'b',
      generation,
    });
    await store.batches.save({
      id: 'b',
      refreshId: null,
      judge: 'j',
      inputFileId: '',
      status: 'submitting',
      gameIds: ['x', 'y'],
      createdAt: 1,
      finishedAt: null,
      cost: null,
    });
    const raw = (q: string) => store.sqlite.prepare(q).raw().all();
    expect(raw('SELECT turns, reference FROM questions ORDER BY id')).toEqual(
      QUESTIONS.map((q) => [JSON.stringify(q.turns), q.reference ? JSON.stringify(q.reference) : null]),
    );
    expect(raw('SELECT turns FROM reference_answers')).toEqual(
      REFERENCES.map((r) => [JSON.stringify(r.turns)]),
    );
    expect(raw('SELECT turns FROM answers ORDER BY model, question_id')).toEqual(
      ANSWERS.map((a) => [JSON.stringify(a.turns)]),
    );
    expect(
      raw(
        `SELECT judge_settings, verdict_probs, typeof(verdict_probs) FROM games WHERE id NOT IN ('${grouped[0]!.id}', '${grouped[1]!.id}') ORDER BY created_at`,
      ),
    ).toEqual([
      [JSON.stringify(settings), JSON.stringify(probs), 'text'],
      [JSON.stringify(settings), null, 'null'],
      ['{"temperature":0,"maxTokens":2048,"seed":7}', '{"A":0.125,"B":0.75,"C":0.125}', 'text'],
    ]);
    expect(
      store.sqlite
        .prepare(
          'SELECT judge_settings, verdict_probs, typeof(verdict_probs) FROM games WHERE id IN (?, ?) ORDER BY id',
        )
        .raw()
        .all(grouped[0]!.id, grouped[1]!.id),
    ).toEqual([
      [JSON.stringify(settings), null, 'null'],
      [JSON.stringify(settings), JSON.stringify(probs), 'text'],
    ]);
    expect(raw('SELECT config FROM runs')).toEqual([[JSON.stringify(runConfig)]]);
    expect(raw('SELECT config, summary, degraded, typeof(degraded) FROM refreshes ORDER BY id')).toEqual([
      [
        JSON.stringify({ file: 'r.json', config: { db: 'x.db' } }),
        JSON.stringify(summary),
        JSON.stringify(['a "quoted" reason']),
        'text',
      ],
      [JSON.stringify({ file: 'r.json', config: {} }), '{}', null, 'null'],
    ]);
    expect(raw('SELECT generation FROM checkpoints')).toEqual([[JSON.stringify(generation)]]);
    expect(raw('SELECT game_ids, typeof(finished_at), typeof(cost) FROM batches')).toEqual([
      ['["x","y"]', 'null', 'null'],
    ]);
    await store.close();
  });

  it("a games row's verdict is checked against its game's kind where it is read (written behind the store's back)", async () => {
    const store = openSqliteStore(join(dir, 'verdict-check.db'));
    const pair = makeGame({ verdict: 'model_2' });
    const single = makeGame({
      promptName: 'single-v1',
      match: { questionId: 81, category: 'writing', turn: 1, model1: 'alpha' },
      verdict: '7.5',
    });
    await store.importBundle({ games: [pair, single] });
    // the bytes stored are the verdict's text, as before the column was typed
    const stored = () => store.sqlite.prepare('SELECT verdict FROM games ORDER BY id').raw().all();
    expect(stored()).toEqual([['model_2'], ['7.5']]);
    expect(await store.games.list()).toEqual([pair, single]);
    const set = (id: string, verdict: string) =>
      store.sqlite.prepare('UPDATE games SET verdict = ? WHERE id = ?').run(verdict, id);
    for (const [id, bad, what] of [
      [pair.id, '7', 'a pairwise verdict (model_1, model_2, tie or error)'],
      [pair.id, 'A', 'a pairwise verdict (model_1, model_2, tie or error)'],
      [single.id, 'model_1', 'a score (a number) or error'],
      [single.id, 'seven', 'a score (a number) or error'],
    ] as const) {
      set(id, bad);
      const message = `game ${id}: verdict "${bad}" is not ${what}`;
      await expect(store.games.list()).rejects.toThrow(message);
      await expect(store.games.ofRuns('judge-x', ['run-1'])).rejects.toThrow(message);
      set(pair.id, 'model_2');
      set(single.id, '7.5');
    }
    set(single.id, 'error');
    expect((await store.games.list({ kind: 'single' }))[0]!.verdict).toBe('error');
    // an earlier version stored String(rating) of a 309+ digit rating: it reads as error, and the listing loads
    set(single.id, 'Infinity');
    expect((await store.games.list({ kind: 'single' }))[0]!.verdict).toBe('error');
    const runRows = await store.games.ofRuns('judge-x', ['run-1']);
    expect(runRows.find((r) => r.id === single.id)?.verdict).toBe('error');
    await store.close();
  });
});
