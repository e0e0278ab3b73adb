// A dry run writes nothing: it plans on a view of the store as it would read after an import that is not
// written, an ImportBundle applied over the store with importBundle's rules (tests/storage/pending.test.ts).
import type { Answer, PromptScheme, Question, ReferenceAnswer } from '../core/types.ts';
import type {
  CatalogStore,
  GameStore,
  ImportBundle,
  ImportCounts,
  PairSetSummary,
  VoteStore,
} from './store.ts';

/** What planning and the run's checks read. */
export interface StoreReader {
  readonly catalog: CatalogStore;
  readonly games: Pick<GameStore, 'existingIds' | 'list' | 'judges'>;
  readonly votes: VoteStore;
}

/** The part of an import a dry run can preview: what plans read (games and votes are not previewed). */
export type PendingBundle = Pick<ImportBundle, 'questions' | 'references' | 'answers' | 'prompts'>;

/** The counts importBundle would return for this bundle. */
export function bundleCounts(b: ImportBundle): ImportCounts {
  return {
    questions: b.questions?.items.length ?? 0,
    references: b.references?.length ?? 0,
    answers: (b.answers ?? []).reduce((s, f) => s + f.items.length, 0),
    prompts: b.prompts?.length ?? 0,
    games: b.games?.length ?? 0,
    votes: (b.votes ?? []).reduce((s, f) => s + f.items.length, 0),
  };
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `base` as it would read after importing `bundle`; nothing is written. Views stack (a view is a base). */
export function pendingView(base: StoreReader, bundle: PendingBundle): StoreReader {
  const newQuestions = bundle.questions?.items ?? [];
  const newAnswers = (bundle.answers ?? []).flatMap((f) => f.items);
  // every stored question, of the tournament and of each labelled set, with the bundle's over them
  let questions: Promise<Map<number, Question>> | undefined;
  const allQuestions = () =>
    (questions ??= (async () => {
      const sets = (await base.catalog.pairSets()).map((s) => s.set);
      const stored = (
        await Promise.all([base.catalog.questions(), ...sets.map((set) => base.catalog.questions({ set }))])
      ).flat();
      const m = new Map(stored.map((q) => [q.id, q]));
      for (const q of newQuestions) m.set(q.id, q);
      return m;
    })());
  /** whether question `id` belongs to `set` (undefined: the tournament, i.e. no labelled set) */
  const inSet = (qs: Map<number, Question>, id: number, set: string | undefined) =>
    set === undefined ? qs.get(id)?.set === undefined : qs.get(id)?.set === set;
  const answersOf = async (models?: string[]): Promise<Answer[]> => {
    // the stored answers of every question (tournament and sets), with the bundle's over them
    const sets = (await base.catalog.pairSets()).map((s) => s.set);
    const stored = (
      await Promise.all([
        base.catalog.answers(models),
        ...sets.map((set) => base.catalog.answers(models, { set })),
      ])
    ).flat();
    const m = new Map(stored.map((a) => [`${a.model}\u0000${a.questionId}`, a]));
    for (const a of newAnswers)
      if (!models || models.includes(a.model)) m.set(`${a.model}\u0000${a.questionId}`, a);
    return [...m.values()].sort((a, b) => byString(a.model, b.model) || a.questionId - b.questionId);
  };
  const catalog: CatalogStore = {
    async questions(f = {}) {
      if (!newQuestions.length) return base.catalog.questions(f);
      const qs = await allQuestions();
      return [...qs.values()].filter((q) => inSet(qs, q.id, f.set)).sort((a, b) => a.id - b.id);
    },
    async answers(models, f = {}) {
      if (!newQuestions.length && !newAnswers.length) return base.catalog.answers(models, f);
      const qs = await allQuestions();
      return (await answersOf(models)).filter((a) => inSet(qs, a.questionId, f.set));
    },
    async models() {
      if (!newQuestions.length && !newAnswers.length) return base.catalog.models();
      const qs = await allQuestions();
      return [
        ...new Set((await answersOf()).filter((a) => inSet(qs, a.questionId, undefined)).map((a) => a.model)),
      ].sort(byString);
    },
    async references() {
      const m = new Map<string, ReferenceAnswer>(
        (await base.catalog.references()).map((r) => [`${r.source}\u0000${r.questionId}`, r]),
      );
      for (const r of bundle.references ?? []) m.set(`${r.source}\u0000${r.questionId}`, r);
      return [...m.values()];
    },
    async prompts() {
      const m = new Map<string, PromptScheme>((await base.catalog.prompts()).map((p) => [p.name, p]));
      // as the store reads it back: an empty category or description is none
      for (const { category, description, ...p } of bundle.prompts ?? [])
        m.set(p.name, { ...p, ...(category ? { category } : {}), ...(description ? { description } : {}) });
      return [...m.values()].sort((a, b) => byString(a.name, b.name));
    },
    // (the view is never served; its token differs from the store's while it previews anything)
    async stamp() {
      const stored = await base.catalog.stamp();
      return newQuestions.length || newAnswers.length
        ? `${stored}+${newQuestions.length}.${newAnswers.length}`
        : stored;
    },
    async pairSets(): Promise<PairSetSummary[]> {
      const stored = await base.catalog.pairSets();
      if (!newQuestions.length) return stored;
      // the items each set would hold; its judges' games as stored
      const counts = new Map<string, number>();
      for (const q of (await allQuestions()).values())
        if (q.set !== undefined) counts.set(q.set, (counts.get(q.set) ?? 0) + 1);
      return [...counts]
        .sort(([a], [b]) => byString(a, b))
        .map(([set, items]) => ({ set, items, judges: stored.find((s) => s.set === set)?.judges ?? [] }));
    },
  };
  return {
    catalog,
    games: {
      existingIds: (ids) => base.games.existingIds(ids),
      list: (f) => base.games.list(f),
      judges: () => base.games.judges(),
    },
    votes: { list: (judge, f) => base.votes.list(judge, f) },
  };
}
