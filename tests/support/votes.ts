// Import a synthetic votes CSV the way a user must: the questions and the models' answers first (a vote on a
// question or model the database does not know is skipped with a warning, issue 12 item 5), then the votes.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { arenaOk } from './cli.ts';

/** Write question.jsonl and one answers file per model named in `csv` (columns question_id, model_a, model_b), import them, then the votes. */
export async function importVotesWithContext(db: string, csv: string): Promise<void> {
  const lines = readFileSync(csv, 'utf8').trim().split('\n');
  const head = lines[0]!.split(',');
  const [q, a, b] = ['question_id', 'model_a', 'model_b'].map((c) => head.indexOf(c));
  const rows = lines.slice(1).map((l) => l.split(','));
  const questions = [...new Set(rows.map((r) => Number(r[q!])))].sort((x, y) => x - y);
  const models = [...new Set(rows.flatMap((r) => [r[a!]!, r[b!]!]))].sort();
  const dir = join(dirname(csv), 'context');
  mkdirSync(join(dir, 'answers'), { recursive: true });
  writeFileSync(
    join(dir, 'question.jsonl'),
    questions
      .map((id) =>
        JSON.stringify({
          question_id: id,
          category: 'writing',
          turns: [`question ${id}?`, `and then ${id}?`],
        }),
      )
      .join('\n') + '\n',
  );
  for (const m of models)
    writeFileSync(
      join(dir, 'answers', `${m}.jsonl`),
      questions
        .map((id) =>
          JSON.stringify({
            question_id: id,
            model_id: m,
            choices: [{ index: 0, turns: [`${m} on ${id}`, `${m} again`] }],
          }),
        )
        .join('\n') + '\n',
    );
  await arenaOk(['import', 'questions', '--db', db, join(dir, 'question.jsonl')]);
  await arenaOk(['import', 'answers', '--db', db, ...models.map((m) => join(dir, 'answers', `${m}.jsonl`))]);
  await arenaOk(['import', 'votes', '--db', db, csv]);
}
