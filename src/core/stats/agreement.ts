import type { Vote } from '../types.ts';

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
  const aFirst = v.model1 <= v.model2;
  if (v.winner === 'model_1') return aFirst ? 'a' : 'b';
  return aFirst ? 'b' : 'a';
}

export function itemKey(v: Vote): string {
  const [lo, hi] = v.model1 <= v.model2 ? [v.model1, v.model2] : [v.model2, v.model1];
  return `${v.questionId}\u0000${lo}\u0000${hi}`;
}

/**
 * FastChat's compute_agreement, generalised. Per turn, items are (question, sorted model pair).
 * Two different judges: every vote of one is compared with every vote of the other on the same
 * item (for a judge with one verdict per item against the experts this is exactly FastChat's
 * "each expert vote against the single GPT-4 verdict"). The same judge twice (human vs human):
 * every unordered pair of its votes on an item. "with-tie" (S1) compares all; "without-tie" (S2)
 * skips any comparison in which either side is a tie (inconsistent counts as a tie).
 */
export function agreement(votes1: Iterable<Vote>, votes2: Iterable<Vote> | 'same'): AgreementRow[] {
  const same = votes2 === 'same';
  const byTurn = new Map<number, Map<string, { j1: Label[]; j2: Label[] }>>();
  const add = (v: Vote, side: 'j1' | 'j2') => {
    let items = byTurn.get(v.turn);
    if (!items) byTurn.set(v.turn, (items = new Map()));
    const k = itemKey(v);
    let it = items.get(k);
    if (!it) items.set(k, (it = { j1: [], j2: [] }));
    it[side].push(label(v));
  };
  for (const v of votes1) add(v, 'j1');
  if (!same) for (const v of votes2) add(v, 'j2');

  const rows: AgreementRow[] = [];
  for (const turn of [...byTurn.keys()].sort((a, b) => a - b)) {
    const items = byTurn.get(turn)!;
    for (const setup of ['with-tie', 'without-tie'] as const) {
      const banTie = setup === 'without-tie';
      let total = 0;
      let agree = 0;
      const compare = (x: Label, y: Label) => {
        if (banTie && (x === 'tie' || y === 'tie')) return;
        total++;
        if (x === y) agree++;
      };
      for (const it of items.values()) {
        if (same) {
          for (let i = 0; i < it.j1.length; i++)
            for (let j = i + 1; j < it.j1.length; j++) compare(it.j1[i]!, it.j1[j]!);
        } else {
          for (const x of it.j1) for (const y of it.j2) compare(x, y);
        }
      }
      rows.push({ turn, setup, total, agree, ratio: total ? agree / total : 0 });
    }
  }
  return rows;
}
