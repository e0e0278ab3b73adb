// Style-controlled ratings of one judge: its outcomes (or the expert votes) with the style of both answers as the
// judge read them (the answer's turns up to the one judged).
import {
  addCounts,
  styleControlChecked,
  styleCounts,
  type CheckedStyleResult,
  type StyleBattle,
  type StyleCounts,
  type StyleGroup,
  type StyleOptions,
} from '../core/stats/style.ts';
import { battleTable, tableRecords } from '../core/stats/battle-table.ts';
import { separationNote } from '../core/stats/estimable-fit.ts';
import { estimability } from '../core/stats/separation.ts';
import type { Store } from '../storage/store.ts';
import { countedOutcomes, judgeData } from './results.ts';
import { scoreOf } from '../core/outcomes.ts';

export interface StyleReport extends CheckedStyleResult {
  judge: string;
  /** battles left out because an answer is not in the store */
  missingAnswers: number;
  /** models with no finite rating (they won or lost every game): left out of the fit, with the reason */
  notEstimable: { model: string; note: string }[];
}

export async function styleReport(
  store: Store,
  judge: string,
  groups: StyleGroup[],
  o: StyleOptions & { turn?: number } = {},
): Promise<StyleReport> {
  const d = await judgeData(store, judge);
  const style = new Map<string, StyleCounts[]>();
  for (const a of await store.catalog.answers()) {
    const per = a.turns.map(styleCounts);
    // cumulative: turn t shows the judge the answer's turns 1..t
    style.set(
      `${a.model}\u0000${a.questionId}`,
      per.map((_, t) => addCounts(per.slice(0, t + 1))),
    );
  }
  const battles: StyleBattle[] = [];
  let missing = 0;
  for (const r of countedOutcomes(d, judge)) {
    if (r.outcome === 'error' || (o.turn !== undefined && r.turn !== o.turn)) continue;
    const sa = style.get(`${r.model1}\u0000${r.questionId}`)?.[r.turn - 1];
    const sb = style.get(`${r.model2}\u0000${r.questionId}`)?.[r.turn - 1];
    if (!sa || !sb) {
      missing++;
      continue;
    }
    battles.push({
      a: r.model1,
      b: r.model2,
      score: scoreOf(r.outcome),
      cluster: r.questionId,
      styleA: sa,
      styleB: sb,
    });
  }
  // a model that won (or lost) every game has no finite rating; penalised, it would still sit thousands of
  // points out and drag the centring of every round: leave it out and say why, as `arena ratings` does
  const t = battleTable(battles.map((b) => ({ a: b.a, b: b.b, score: b.score, cluster: b.cluster })));
  const { status } = estimability(t.pairs);
  const recs = tableRecords(t);
  const notEstimable = t.pairs.models.flatMap((model, k) =>
    status[k] === 'ok'
      ? []
      : [{ model, note: separationNote(status[k]!, recs[k]!).replace('; --prior gives one', '') }],
  );
  const out = new Set(notEstimable.map((x) => x.model));
  const kept = out.size ? battles.filter((b) => !out.has(b.a) && !out.has(b.b)) : battles;
  return { judge, ...styleControlChecked(kept, groups, o), missingAnswers: missing, notEstimable };
}
