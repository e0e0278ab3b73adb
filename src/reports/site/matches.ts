// The match browser's data: one question and two models, with their answers, the reference answers, every
// stored game between them and every recorded vote.
import { ANNOTATORS } from '../../core/constants.ts';
import type { Game, Question } from '../../core/types.ts';
import { voteToFile, type FileVote } from '../../core/sides.ts';
import type { Store } from '../../storage/store.ts';
import type { Catalog, Memo } from './catalog.ts';

export interface MatchView {
  question: Question;
  modelA: string;
  modelB: string;
  answers: { model: string; turns: string[] }[];
  references: { source: string; turns: string[] }[];
  games: Game[];
  /** in the API's (and FastChat's) spelling: modelA, modelB, winner model_a | model_b | tie | inconsistent */
  votes: FileVote[];
}

export class Matches {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
    private readonly catalog: Catalog,
  ) {}

  /** Everything about one question and two models, read on each request (never held: there are models² of them). */
  async match(questionId: number, modelA: string, modelB: string): Promise<MatchView | undefined> {
    const question = (await this.catalog.questions()).find((q) => q.id === questionId);
    if (!question) return undefined;
    const answers = (await this.store.catalog.answers([modelA, modelB])).filter(
      (a) => a.questionId === questionId,
    );
    const refs = (await this.store.catalog.references()).filter((r) => r.questionId === questionId);
    const references = [
      ...(question.reference ? [{ source: 'question', turns: question.reference }] : []),
      ...refs.map((r) => ({ source: r.source, turns: r.turns })),
    ];
    const games = (
      await this.store.games.list({ questionId, models: [modelA, modelB], kind: 'pairwise' })
    ).sort(
      (a, b) =>
        a.judge.localeCompare(b.judge) ||
        a.match.turn - b.match.turn ||
        a.order.localeCompare(b.order) ||
        a.createdAt - b.createdAt,
    );
    return {
      question,
      modelA,
      modelB,
      answers: [modelA, modelB].map((m) => ({
        model: m,
        turns: answers.find((a) => a.model === m)?.turns ?? [],
      })),
      references,
      games,
      votes: await this.votes(questionId, modelA, modelB),
    };
  }

  /** The recorded votes of every judge on this question between these two models (either side first). */
  private async votes(questionId: number, modelA: string, modelB: string): Promise<FileVote[]> {
    const votes: FileVote[] = [];
    for (const j of (await this.catalog.judges()).filter((x) => x.votes > 0)) {
      for (const v of await this.cache.get(`votes:${j.judge}`, () => this.store.votes.list(j.judge)))
        if (
          v.questionId === questionId &&
          ((v.model1 === modelA && v.model2 === modelB) || (v.model1 === modelB && v.model2 === modelA))
        )
          // an annotator's vote is the judge's, never a person's: visitors do not learn who voted what
          votes.push(voteToFile(j.judge === ANNOTATORS ? { ...v, voter: ANNOTATORS } : v));
    }
    return votes;
  }
}
