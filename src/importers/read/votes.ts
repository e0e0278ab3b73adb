// Votes (the HF mt_bench_human_judgments splits) into the bundle, each checked against the known questions and
// the models that have answers or games.
import { basename } from 'node:path';
import { parseVotes } from '../formats.ts';
import { readImportFile } from '../lines.ts';
import type { ImportSources } from '../import.ts';
import type { ImportContext } from './context.ts';

export async function readVotes(c: ImportContext, votes: NonNullable<ImportSources['votes']>): Promise<void> {
  const { store, bundle } = c;
  // a vote's models must have answers, or games (a FastChat judgment carries the answers it judged)
  const parsed = votes.map((v) => ({
    path: v.path,
    items: parseVotes(v.path, readImportFile(v.path), v.turn !== undefined ? { turn: v.turn } : {}),
  }));
  const models = new Set(await store.catalog.models());
  for (const f of bundle.answers ?? []) for (const a of f.items) models.add(a.model);
  for (const g of bundle.games ?? [])
    [g.match.model1, g.match.model2].forEach((m) => m !== undefined && models.add(m));
  if (parsed.some((p) => p.items.some((x) => !models.has(x.model1) || !models.has(x.model2))))
    for (const j of await store.games.judges())
      if (j.games)
        for (const g of await store.games.list({ judge: j.judge }))
          [g.match.model1, g.match.model2].forEach((m) => m !== undefined && models.add(m));
  for (const p of parsed) {
    const unknownModel = (m: string) =>
      `vote on unknown model "${m}" (no answers or games of it; import its answers first)`;
    const items = p.items.filter((x) => {
      const [field, what] = !c.categoryByQuestion.has(x.questionId)
        ? ['question_id', `vote on unknown question ${x.questionId} (import its questions first)`]
        : !models.has(x.model1)
          ? ['model_a', unknownModel(x.model1)]
          : !models.has(x.model2)
            ? ['model_b', unknownModel(x.model2)]
            : [];
      if (field) c.unknown(p.path, x.line, field, what!);
      return !field;
    });
    (bundle.votes ??= []).push({ source: basename(p.path), items });
  }
}
