import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Mode } from '../../core/types.ts';
import { ensureRunPrompts, missingRunPrompts } from '../../importers/builtin.ts';
import type { ImportSources } from '../../importers/import.ts';
import { pendingView, type StoreReader } from '../../storage/pending.ts';
import type { SqliteStore } from '../../storage/sqlite.ts';
import { list } from '../format.ts';
import { checkModels, checkPairSet, checkTurns } from '../validate.ts';
import type { RunArgs } from './run-args.ts';

/** --answers' paths as files: a directory stands for its .jsonl files, in name order. */
function answerFiles(paths: string[]): string[] {
  return paths.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => join(p, f))
      : [p],
  );
}

/**
 * The store made ready for the run: --questions and --answers imported, the models, turns or pair set checked,
 * the shipped prompts imported. A dry run writes nothing: it plans on a view with the imports applied.
 */
export async function prepareStore(
  store: SqliteStore,
  args: RunArgs,
  mode: Mode,
  models: string[],
  turns: number[],
): Promise<{ reader: StoreReader; questionIds: number[] | undefined }> {
  let questionIds: number[] | undefined;
  const dry = !!args['dry-run'];
  let reader: StoreReader = store;
  if (args.questions || args.answers) {
    const sources: ImportSources = {
      ...(args.questions ? { questions: [args.questions] } : {}),
      ...(args.answers ? { answers: answerFiles(list(args.answers)!) } : {}),
    };
    // the importers load only for a run that imports files
    const { importFiles, readImport } = await import('../../importers/import.ts');
    if (dry) reader = pendingView(store, (await readImport(store, sources)).bundle);
    else await importFiles(store, sources);
  }
  if (args.questions)
    questionIds = (await import('../../importers/formats.ts'))
      .parseQuestions(args.questions, readFileSync(args.questions))
      .map((q) => q.id);
  if (args.set)
    await checkPairSet(reader, args.set); // its items are single-turn pairs of output_1 and output_2
  else {
    await checkModels(reader, models, 'models', { withVotes: false });
    if (mode === 'pairwise-baseline')
      await checkModels(reader, [args.baseline], 'baseline', { withVotes: false });
    await checkTurns(reader, turns);
  }
  // planning reads only: the shipped prompts the prompt set needs are imported here, once
  if (dry) reader = pendingView(reader, { prompts: await missingRunPrompts(reader, mode, args.prompts) });
  else await ensureRunPrompts(store, [mode], args.prompts);
  return { reader, questionIds };
}
