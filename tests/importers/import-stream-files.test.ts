// Questions, references and prompts files go through the streamed JSONL reader like answers (so gzip imports); a
// large answers file reaches the store in parts that commit as one; a judgment of a model without answers is a
// located error in a release, a located warning in a single-file import (issue 12, items 5 and 10).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ANSWER_PART_CHARS, importFiles } from '../../src/importers/import.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import type { ImportBundle } from '../../src/storage/store.ts';
// the imports run in this process (runCli): nothing here is about the process itself
import { arenaOk, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';

const dir = tmpDir('arena-stream-files-');
const OWN = join(REPO_ROOT, 'questions');
const questions = readFileSync(join(OWN, 'arena.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { question_id: number; turns: string[] });
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

describe('questions, references and prompts are streamed', () => {
  it('gzip-compressed files import with the same content as the plain ones', async () => {
    const plainDb = join(dir, 'plain.db');
    const gzDb = join(dir, 'gz.db');
    const ref = join(dir, 'gpt-4.jsonl');
    writeFileSync(
      ref,
      jsonl(
        questions.map((q) => ({
          question_id: q.question_id,
          choices: [{ index: 0, turns: q.turns.map((t) => `reference for ${t}`) }],
        })),
      ),
    );
    const gz = (src: string, name: string) => {
      const out = join(dir, name);
      writeFileSync(out, gzipSync(readFileSync(src)));
      return out;
    };
    for (const [db, q, r, p] of [
      [plainDb, join(OWN, 'arena.jsonl'), ref, join(OWN, 'judge_prompts.jsonl')],
      [
        gzDb,
        gz(join(OWN, 'arena.jsonl'), 'arena.jsonl.gz'),
        gz(ref, 'gpt-4.jsonl.gz'),
        gz(join(OWN, 'judge_prompts.jsonl'), 'judge_prompts.jsonl.gz'),
      ],
    ] as const) {
      expect(await arenaOk(['import', 'questions', q, '--db', db])).toMatch(/: 24 questions$/m);
      expect(await arenaOk(['import', 'references', r, '--db', db])).toMatch(/: 24 references$/m);
      expect(await arenaOk(['import', 'prompts', p, '--db', db])).toMatch(/: \d+ prompts$/m);
    }
    const a = openSqliteStore(plainDb, { readonly: true });
    const b = openSqliteStore(gzDb, { readonly: true });
    try {
      expect(await b.catalog.questions()).toEqual(await a.catalog.questions());
      expect(await b.catalog.prompts()).toEqual(await a.catalog.prompts());
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a bad line is still located (file, line and field), and nothing is written', async () => {
    const db = join(dir, 'bad.db');
    const bad = join(dir, 'bad-questions.jsonl');
    writeFileSync(
      bad,
      `${JSON.stringify({ question_id: 1, category: 'x', turns: ['a'] })}\n\n${JSON.stringify({ question_id: 2, category: 'x', turns: 'a' })}\n`,
    );
    const r = await runArena(['import', 'questions', bad, '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`${bad.replace(/[.]/g, '\\.')}:3: field "turns": expected an array of strings`),
    );
    const p = join(dir, 'bad-prompts.jsonl.gz');
    writeFileSync(
      p,
      gzipSync(`${readFileSync(join(OWN, 'judge_prompts.jsonl'), 'utf8').split('\n')[0]}\n{"name": \n`),
    );
    const r2 = await runArena(['import', 'prompts', p, '--db', db]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/bad-prompts\.jsonl\.gz:2: malformed JSON/);
  });
});

describe('a large answers file', () => {
  const big = join(dir, 'big-model.jsonl');
  const text = 'word '.repeat(400_000); // 2 MB a turn
  const lines = questions.map((q) => ({
    question_id: q.question_id,
    answer_id: `a${q.question_id}`,
    model_id: 'big-model',
    choices: [{ index: 0, turns: q.turns.map(() => text) }],
  }));

  it('reaches the store in parts of at most ANSWER_PART_CHARS characters of answer text, committed together', async () => {
    writeFileSync(big, jsonl(lines));
    const store = openSqliteStore(join(dir, 'parts.db'));
    try {
      await importFiles(store, { questions: [join(OWN, 'arena.jsonl')] });
      const seen: ImportBundle[] = [];
      const importBundle = store.importBundle.bind(store);
      store.importBundle = (b) => (seen.push(b), importBundle(b));
      const counts = await importFiles(store, { answers: [big] });
      expect(counts.answers).toBe(24);
      expect(seen).toHaveLength(1); // one atomic store call
      const parts = seen[0]!.answers!;
      expect(parts.length).toBeGreaterThanOrEqual(
        Math.ceil((lines.length * 2 * text.length) / ANSWER_PART_CHARS),
      );
      for (const p of parts) {
        expect(p.source).toBe('big-model.jsonl');
        expect(
          p.items.reduce((n, a) => n + a.turns.reduce((m, t) => m + t.length, 0), 0),
        ).toBeLessThanOrEqual(ANSWER_PART_CHARS);
      }
      expect(parts.flatMap((p) => p.items.map((a) => a.questionId))).toEqual(
        questions.map((q) => q.question_id),
      );
      const stored = await store.catalog.answers(['big-model']);
      expect(stored).toHaveLength(24);
      expect(stored.every((a) => a.turns.every((t) => t === text))).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('with a bad last line leaves the database as it was (no part is written)', async () => {
    const db = join(dir, 'atomic.db');
    await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
    writeFileSync(
      big,
      jsonl([...lines.slice(0, -1), { ...lines.at(-1)!, choices: [{ index: 0, turns: [1] }] }]),
    );
    const r = await runArena(['import', 'answers', big, '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/big-model\.jsonl:24: field "choices\[0\]\.turns\[0\]"/);
    const store = openSqliteStore(db, { readonly: true });
    try {
      expect(await store.catalog.models()).toEqual([]);
    } finally {
      await store.close();
    }
  }, 120_000);
});

describe('judgments of a model with no answers', () => {
  const q = questions[0]!;
  const pair = (model2: string) => ({
    question_id: q.question_id,
    model_1: 'arena-drift',
    model_2: model2,
    g1_winner: 'model_1',
    g2_winner: 'model_1',
    judge: ['gpt-4', 'pair-v2'],
    g1_user_prompt: 'u1',
    g1_judgment: '[[A]]',
    g2_user_prompt: 'u2',
    g2_judgment: '[[B]]',
    turn: 1,
    tstamp: 1700000000,
  });

  function release(name: string, judged: string): string {
    const d = join(dir, name);
    mkdirSync(join(d, 'model_answer'), { recursive: true });
    mkdirSync(join(d, 'model_judgment'), { recursive: true });
    copyFileSync(join(OWN, 'arena.jsonl'), join(d, 'question.jsonl'));
    for (const m of ['arena-drift', 'arena-echo'])
      copyFileSync(join(OWN, 'answers', `${m}.jsonl`), join(d, 'model_answer', `${m}.jsonl`));
    writeFileSync(join(d, 'model_judgment', 'gpt-4_pair.jsonl'), jsonl([pair('arena-echo'), pair(judged)]));
    return d;
  }

  it('in a whole release: an error naming file, line and field, and no database is left', async () => {
    const d = release('bad-release', 'nonexistent-model');
    const db = join(dir, 'release.db');
    const r = await runArena(['import', 'mtbench', '--dir', d, '--db', db]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      `${join(d, 'model_judgment', 'gpt-4_pair.jsonl')}:2: field "model_2": judgment of model "nonexistent-model", which has no answers`,
    );
    // with every judged model answered, the release imports
    expect(
      await arenaOk(['import', 'mtbench', '--dir', release('good-release', 'arena-echo'), '--db', db]),
    ).toMatch(/ answers, 2 games$/m);
  });

  it('in a single file: a located warning, once per model, and the games are kept', async () => {
    const db = join(dir, 'single.db');
    await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
    await arenaOk(['import', 'answers', join(OWN, 'answers', 'arena-drift.jsonl'), '--db', db]);
    const file = join(dir, 'gpt-4_pair.jsonl');
    writeFileSync(
      file,
      jsonl([pair('arena-echo'), pair('nonexistent-model'), { ...pair('nonexistent-model'), turn: 2 }]),
    );
    const out = await arenaOk(['import', 'judgments', file, '--db', db]);
    expect(out).toMatch(/: 6 games$/m);
    expect(out).toContain(
      `warning: ${file}:1: field "model_2": judgment of model "arena-echo", which has no answers in the database;`,
    );
    expect(out).toContain(
      `warning: ${file}:2: field "model_2": judgment of model "nonexistent-model", which has no answers in the database (and 1 more line(s));`,
    );
    expect(out.match(/warning:/g)).toHaveLength(2);
  });
});
