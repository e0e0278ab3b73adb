import type { Vote } from '../types.ts';
import { itemKey } from '../outcomes.ts';

export type AgreementSetup = 'with-tie' | 'without-tie';

export interface AgreementRow {
  turn: number;
  setup: AgreementSetup;
  total: number;
  agree: number;
  ratio: number;
}

export type Label = 'a' | 'b' | 'tie';

/** Orientation-free label of a vote on the sorted pair (min, max). */
export function label(v: Vote): Label {
  if (v.winner === 'tie' || v.winner === 'inconsistent') return 'tie';
  return (v.winner === 'model_1') === v.model1 <= v.model2 ? 'a' : 'b';
}

/** The key of a vote's match regardless of orientation. */
export const voteKey = (v: Vote): string => itemKey(v.questionId, v.turn, v.model1, v.model2);

/** One compared pair of labels, as FastChat's agreement compares them, with the question it is about. */
export interface Comparison {
  questionId: number;
  turn: number;
  x: Label;
  y: Label;
}

/**
 * The comparisons behind agreement() and kappa: per (turn, question, sorted pair), every vote of judge 1 against
 * every vote of judge 2, or, for the same judge twice, every unordered pair of its votes (added in both
 * directions, so kappa pools the two sides' label shares; the agreement ratio is unchanged).
 */
export function comparisons(votes1: Iterable<Vote>, votes2: Iterable<Vote> | 'same'): Comparison[] {
  const same = votes2 === 'same';
  const items = new Map<string, { q: number; t: number; j1: Label[]; j2: Label[] }>();
  const add = (v: Vote, side: 'j1' | 'j2') => {
    const k = voteKey(v);
    let it = items.get(k);
    if (!it) items.set(k, (it = { q: v.questionId, t: v.turn, j1: [], j2: [] }));
    it[side].push(label(v));
  };
  for (const v of votes1) add(v, 'j1');
  if (!same) for (const v of votes2) add(v, 'j2');
  const out: Comparison[] = [];
  for (const it of items.values()) {
    if (same) {
      for (let i = 0; i < it.j1.length; i++)
        for (let j = i + 1; j < it.j1.length; j++) {
          out.push({ questionId: it.q, turn: it.t, x: it.j1[i]!, y: it.j1[j]! });
          out.push({ questionId: it.q, turn: it.t, x: it.j1[j]!, y: it.j1[i]! });
        }
    } else for (const x of it.j1) for (const y of it.j2) out.push({ questionId: it.q, turn: it.t, x, y });
  }
  return out;
}

/**
 * FastChat's compute_agreement, generalised to several votes per item (see comparisons): "with-tie" (S1)
 * compares all; "without-tie" (S2) skips a comparison in which either side is a tie (inconsistent is one).
 */
export function agreement(votes1: Iterable<Vote>, votes2: Iterable<Vote> | 'same'): AgreementRow[] {
  const v1 = [...votes1];
  const v2 = votes2 === 'same' ? [] : [...votes2];
  const comps = comparisons(v1, votes2 === 'same' ? 'same' : v2);
  // the same judge twice: comparisons holds each unordered pair in both directions
  const div = votes2 === 'same' ? 2 : 1;
  const turns = [...new Set([...v1, ...v2].map((v) => v.turn))].sort((a, b) => a - b);
  return turns.flatMap((turn) =>
    (['with-tie', 'without-tie'] as const).map((setup) => {
      const used = comps.filter(
        (c) => c.turn === turn && (setup === 'with-tie' || (c.x !== 'tie' && c.y !== 'tie')),
      );
      const agree = used.filter((c) => c.x === c.y).length;
      const ratio = used.length ? agree / used.length : 0;
      return { turn, setup, total: used.length / div, agree: agree / div, ratio };
    }),
  );
}
