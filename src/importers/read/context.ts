// What the steps of an import share: the bundle being built, what the store and the files read so far know
// about questions, and the rule for a reference to something neither knows.
import { ArenaError } from '../../core/types.ts';
import type { ImportBundle, Store } from '../../storage/store.ts';
import type { ImportSources } from '../import.ts';

/** The store reads an import needs (a dry run passes the store with a pending bundle applied). */
export type ImportStore = {
  catalog: Pick<Store['catalog'], 'questions' | 'prompts' | 'models'>;
  games: Pick<Store['games'], 'existingIds' | 'judges' | 'list'>;
};

export interface ImportContext {
  store: ImportStore;
  src: ImportSources;
  note: ((line: string) => void) | undefined;
  bundle: ImportBundle;
  warnings: string[];
  /** each known question's number of turns (the store's and the imported ones) */
  turnsByQuestion: Map<number, number>;
  categoryByQuestion: Map<number, string>;
  /** a reference to something the database does not know: an error in a strict import, else a located warning (and the row is skipped) */
  unknown(path: string, line: number, field: string, what: string): void;
}

/** A fresh context: the store's questions known, nothing read yet. */
export async function importContext(
  store: ImportStore,
  src: ImportSources,
  note: ((line: string) => void) | undefined,
): Promise<ImportContext> {
  const warnings: string[] = [];
  const turnsByQuestion = new Map<number, number>();
  const categoryByQuestion = new Map<number, string>();
  for (const q of await store.catalog.questions()) {
    turnsByQuestion.set(q.id, q.turns.length);
    categoryByQuestion.set(q.id, q.category);
  }
  return {
    store,
    src,
    note,
    bundle: {},
    warnings,
    turnsByQuestion,
    categoryByQuestion,
    unknown(path, line, field, what) {
      const msg = `${path}:${line}: field "${field}": ${what}`;
      if (src.strict) throw new ArenaError(msg, { file: path, line, field });
      if (warnings.at(-1) !== `${msg}; skipped`) warnings.push(`${msg}; skipped`); // a pair line holds both orders
    },
  };
}
