// What annotators vote on: every match of the tournament, in queue order: `review` first the matches the LLM judges
// disagree on most (where a person's vote tells the most), `uniform` a random order; the same for every annotator,
// so that annotators overlap (inter-annotator agreement needs shared matches).
import { AUTHOR, DEFAULT_REFERENCE_SOURCE, GOLD, isHumanJudge } from '../core/constants.ts';
import { NEED_REF_CATS } from '../core/prompts.ts';
import { seededRng } from '../core/stats/random.ts';
import { itemKey } from '../core/outcomes.ts';
import type { Answer, MatchItem, Question } from '../core/types.ts';
import type { Store } from '../storage/store.ts';
import { judgeData } from './results.ts';

export type QueueMode = 'review' | 'uniform';

/** model1 < model2 */
export interface QueueMatch extends MatchItem {
  /** 1 - (the most common judge outcome's share), over the judges with an outcome; 0 with fewer than two */
  disagreement: number;
  /** how many LLM judges have an outcome on it */
  judges: number;
}

/** The tournament's matches in queue order. */
export async function annotateQueue(store: Store, mode: QueueMode): Promise<QueueMatch[]> {
  const questions = await store.catalog.questions();
  const byQuestion = new Map<number, Answer[]>();
  for (const a of await store.catalog.answers())
    byQuestion.set(a.questionId, [...(byQuestion.get(a.questionId) ?? []), a]);
  const matches: QueueMatch[] = [];
  for (const q of questions) {
    const answers = (byQuestion.get(q.id) ?? []).sort((x, y) => (x.model < y.model ? -1 : 1));
    for (let turn = 1; turn <= q.turns.length; turn++) {
      const have = answers.filter((a) => (a.turns[turn - 1] ?? '') !== '');
      for (let i = 0; i < have.length; i++)
        for (let j = i + 1; j < have.length; j++)
          matches.push({
            questionId: q.id,
            turn,
            model1: have[i]!.model,
            model2: have[j]!.model,
            disagreement: 0,
            judges: 0,
          });
    }
  }
  // a random order first (Fisher-Yates, seeded: the same for everyone), then, for review, a stable sort by disagreement
  const rng = seededRng(1);
  for (let i = matches.length - 1; i > 0; i--) {
    const k = Math.floor(rng() * (i + 1));
    [matches[i], matches[k]] = [matches[k]!, matches[i]!];
  }
  if (mode === 'uniform') return matches;
  const labels = new Map<string, Map<string, number>>();
  for (const { judge } of await store.games.judges()) {
    if (isHumanJudge(judge) || judge === AUTHOR || judge === GOLD) continue;
    for (const o of (await judgeData(store, judge)).outcomes) {
      if (o.outcome === 'error') continue;
      const k = itemKey(o.questionId, o.turn, o.model1, o.model2);
      const winner = o.outcome === 'model_1' ? o.model1 : o.outcome === 'model_2' ? o.model2 : 'tie';
      const m = labels.get(k) ?? new Map<string, number>();
      m.set(winner, (m.get(winner) ?? 0) + 1);
      labels.set(k, m);
    }
  }
  for (const m of matches) {
    const counts = [...(labels.get(itemKey(m.questionId, m.turn, m.model1, m.model2))?.values() ?? [])];
    const n = counts.reduce((s, c) => s + c, 0);
    m.judges = n;
    m.disagreement = n >= 2 ? 1 - Math.max(...counts) / n : 0;
  }
  return matches.sort((a, b) => b.disagreement - a.disagreement || b.judges - a.judges);
}

/**
 * The texts of one match (the question's turns, both answers, and reference answers for the categories FastChat
 * judges with one), or undefined when its question or an answer is gone.
 */
export async function matchTexts(store: Store, m: { questionId: number; model1: string; model2: string }) {
  const q: Question | undefined = (await store.catalog.questions()).find((x) => x.id === m.questionId);
  const answers = await store.catalog.answers([m.model1, m.model2]);
  const a1 = answers.find((a) => a.model === m.model1 && a.questionId === m.questionId);
  const a2 = answers.find((a) => a.model === m.model2 && a.questionId === m.questionId);
  if (!q || !a1 || !a2) return undefined;
  const refs = NEED_REF_CATS.has(q.category) ? await store.catalog.references() : [];
  const reference = !NEED_REF_CATS.has(q.category)
    ? null
    : (q.reference ??
      refs.find((r) => r.questionId === q.id && r.source === DEFAULT_REFERENCE_SOURCE)?.turns ??
      refs.find((r) => r.questionId === q.id)?.turns ??
      null);
  return { category: q.category, turns: q.turns, answer1: a1.turns, answer2: a2.turns, reference };
}
