// src/storage/pending.ts (what a dry run plans on): a store viewed with an import applied reads exactly as one that
// really imported it, and the viewed store is left unchanged.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Question } from '../../src/core/types.ts';
import { planRun } from '../../src/engine/run.ts';
import { missingRunPrompts } from '../../src/importers/builtin.ts';
import { importFiles, readImport } from '../../src/importers/import.ts';
import type { JudgeProvider } from '../../src/judges/judge.ts';
import {
  bundleCounts,
  pendingView,
  type PendingBundle,
  type StoreReader,
} from '../../src/storage/pending.ts';
import { openMemoryStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { REPO_ROOT } from '../support/cli.ts';

const OWN = join(REPO_ROOT, 'questions');
const MODELS = ['arena-drift', 'arena-echo', 'arena-sage', 'arena-swift'];
const judge: JudgeProvider = { id: 'mock/longer', complete: () => Promise.reject(new Error('not called')) };

/** Our own question set and three models' answers, our prompts, and a small labelled set of two items. */
async function base(): Promise<SqliteStore> {
  const s = openMemoryStore();
  await importFiles(s, {
    questions: [join(OWN, 'arena.jsonl')],
    answers: MODELS.slice(0, 3).map((m) => join(OWN, 'answers', `${m}.jsonl`)),
    prompts: [join(OWN, 'judge_prompts.jsonl')],
  });
  const items: Question[] = [
    { id: 9001, category: 'llmbar', turns: ['Pick one.'], set: 'Natural' },
    { id: 9002, category: 'llmbar', turns: ['Pick two.'], set: 'Natural' },
  ];
  await s.importBundle({
    questions: { source: 'set', items },
    answers: [
      {
        source: 'set',
        items: items.flatMap((q) =>
          ['output_1', 'output_2'].map((model) => ({ model, questionId: q.id, turns: [`${model} ${q.id}`] })),
        ),
      },
    ],
    references: [{ source: 'gpt-4', questionId: 1001, turns: ['old reference'] }],
  });
  return s;
}

/** Everything a reader reads, in a comparable form. */
async function readAll(r: StoreReader) {
  const byKey = <T>(xs: T[], k: (x: T) => string) =>
    [...xs].sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
  return {
    questions: await r.catalog.questions(),
    natural: await r.catalog.questions({ set: 'Natural' }),
    answers: await r.catalog.answers(),
    someAnswers: await r.catalog.answers(['arena-swift', 'arena-drift']),
    naturalAnswers: await r.catalog.answers(undefined, { set: 'Natural' }),
    models: await r.catalog.models(),
    references: byKey(await r.catalog.references(), (x) => `${x.source} ${x.questionId}`),
    prompts: await r.catalog.prompts(),
    sets: await r.catalog.pairSets(),
  };
}

describe('pendingView: a store as it would read after an import that is not written', () => {
  it('reads as the store after importing the same bundle: upserts by key, new rows, labelled sets kept apart', async () => {
    const [viewed, written] = [await base(), await base()];
    const [q1001] = await viewed.catalog.questions().then((qs) => qs.filter((q) => q.id === 1001));
    const bundle: PendingBundle = {
      questions: {
        source: 'more.jsonl',
        items: [
          { ...q1001!, category: 'roleplay', turns: ['changed turn 1', 'changed turn 2'] }, // an upsert
          { id: 5001, category: 'math', turns: ['1+1?'], reference: ['2'] }, // a new question with its reference inside
          { id: 9002, category: 'writing', turns: ['no longer a set item'] }, // leaves the labelled set
        ],
      },
      answers: [
        {
          source: 'arena-swift.jsonl',
          items: [
            { model: 'arena-swift', questionId: 1001, turns: ['a', 'b'] },
            { model: 'arena-swift', questionId: 5001, turns: ['2'] },
          ],
        },
        {
          source: 'arena-drift.jsonl',
          items: [{ model: 'arena-drift', questionId: 1001, turns: ['changed', 'answer'], answerId: 'x1' }],
        },
      ],
      references: [
        { source: 'gpt-4', questionId: 1001, turns: ['new reference'] },
        { source: 'claude', questionId: 5001, turns: ['two'] },
      ],
      prompts: [
        {
          name: 'extra-pair',
          type: 'pairwise',
          systemPrompt: 's',
          promptTemplate: '{question}',
          outputFormat: '[[A]]',
          category: '',
          description: 'an extra scheme',
        },
      ],
    };
    const before = await readAll(viewed);
    const view = pendingView(viewed, bundle);
    const counts = await written.importBundle(bundle);
    expect(bundleCounts(bundle)).toEqual(counts);
    expect(await readAll(view)).toEqual(await readAll(written));
    // and the viewed store is as it was
    expect(await readAll(viewed)).toEqual(before);
  });

  it('a dry run plans the same games on the view as a run plans after importing: files and shipped prompts', async () => {
    const [viewed, written] = [openMemoryStore(), openMemoryStore()];
    const sources = {
      questions: [join(OWN, 'arena.jsonl')],
      answers: MODELS.map((m) => join(OWN, 'answers', `${m}.jsonl`)),
    };
    const { bundle, warnings } = await readImport(viewed, sources);
    expect(warnings).toEqual([]);
    const imported = pendingView(viewed, bundle);
    // an empty database lacks the prompts: the view gets the shipped ones, the written store imports them
    const prompts = await missingRunPrompts(imported, 'pairwise-all');
    expect(prompts.length).toBeGreaterThan(0);
    const view = pendingView(imported, { prompts });
    await importFiles(written, sources);
    await written.importBundle({ prompts: await missingRunPrompts(written, 'pairwise-all') });
    expect(await readAll(view)).toEqual(await readAll(written));
    const plan = async (store: StoreReader) =>
      (await planRun({ store, judge, mode: 'pairwise-all', models: MODELS, turns: [1, 2] })).games.map(
        (g) => g.id,
      );
    const ids = await plan(view);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(await plan(written));
    // nothing was written to the viewed store
    expect(await viewed.catalog.questions()).toEqual([]);
    expect(await viewed.catalog.prompts()).toEqual([]);
  });
});
