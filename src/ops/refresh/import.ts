// Step 1 of a refresh: import the config's files (upserts: a changed answer makes new game ids). A dry run writes
// nothing: it plans on a view of the store with the import applied (src/storage/pending.ts).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ArenaError } from '../../core/types.ts';
import { ensureRunPrompts, missingRunPrompts } from '../../importers/builtin.ts';
import { readImport } from '../../importers/import.ts';
import { bundleCounts, pendingView, type StoreReader } from '../../storage/pending.ts';
import type { ImportCounts, Store } from '../../storage/store.ts';
import { configError, type Loaded, type RefreshConfig } from '../config.ts';

/** The answer files of the config's `answers` (a directory: its .jsonl files); a missing path is an error naming it. */
export function answerFiles(paths: string[]): string[] {
  return paths.flatMap((p) => {
    if (!existsSync(p)) throw new ArenaError(`${p}: no such answer file or directory`, { file: p });
    return statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => join(p, f))
      : [p];
  });
}

export interface Imported {
  /** what planning reads: the store, or (dry run) a view of it with the import and the prompts applied */
  reader: StoreReader;
  counts: ImportCounts;
  changedAnswers: number;
  /** the models the refresh plays (the config's, else those of the answer files) */
  models: string[];
  /** of those, the ones the store did not know before */
  newModels: string[];
}

export async function importAnswers(
  store: Store,
  l: Loaded<RefreshConfig>,
  files: string[],
  dryRun: boolean,
  log: (m: string) => void,
): Promise<Imported> {
  const c = l.config;
  const sources = { questions: c.questions, references: c.references, prompts: c.prompts, answers: files };
  // read and checked whole before anything is written; the files' models are as the import names them
  const { bundle, warnings } = await readImport(store, sources);
  for (const w of warnings) log(`warning: ${w}`);
  const fileModels = (bundle.answers ?? []).map((p) => p.items[0]!.model);
  refuseUnknownModels(l, new Set([...fileModels, ...(await store.catalog.models())]));
  const before = new Map(
    (await store.catalog.answers()).map((a) => [`${a.model}\u0000${a.questionId}`, JSON.stringify(a.turns)]),
  );
  const oldModels = new Set(await store.catalog.models());
  let reader: StoreReader = store;
  if (dryRun) reader = pendingView(store, bundle);
  const counts = dryRun ? bundleCounts(bundle) : await store.importBundle(bundle);
  const after = await reader.catalog.answers();
  const changedAnswers = after.filter((a) => {
    const b = before.get(`${a.model}\u0000${a.questionId}`);
    return b !== undefined && b !== JSON.stringify(a.turns);
  }).length;
  // planning reads only: the shipped prompts the modes (and the canary) need are imported here
  const runModes = [...c.modes.map((m) => m.mode), ...(c.canary ? ['pairwise-all' as const] : [])];
  if (dryRun)
    for (const mode of new Set(runModes))
      reader = pendingView(reader, { prompts: await missingRunPrompts(reader, mode, c.promptSet) });
  else await ensureRunPrompts(store, runModes, c.promptSet);
  const models = c.models ?? [...new Set(fileModels)].sort();
  const newModels = models.filter((m) => !oldModels.has(m));
  log(
    `${dryRun ? 'would import' : 'imported'} ${counts.answers} answers of ${fileModels.length} models (${newModels.length} new: ${newModels.join(', ') || '-'}; ${changedAnswers} changed answers)`,
  );
  return { reader, counts, changedAnswers, models, newModels };
}

/** A model the config names (`models`, a mode's, the canary's) that no answer file gives and the store lacks. */
function refuseUnknownModels(l: Loaded<RefreshConfig>, known: Set<string>): void {
  const c = l.config;
  const lists: [(string | number)[], string[] | undefined][] = [
    [['models'], c.models],
    ...c.modes.map((m, i): [(string | number)[], string[] | undefined] => [['modes', i, 'models'], m.models]),
    [['canary', 'models'], c.canary?.models],
  ];
  for (const [path, models] of lists)
    models?.forEach((m, i) => {
      if (!known.has(m))
        throw configError(
          l,
          [...path, i],
          `model "${m}" has no answer file in "answers" and no answers in ${c.db}: a name misspelt, or its answers not given`,
        );
    });
}
