// Which judge a one-judge command reads: the one named (or the only one ending in "/NAME"), else the only one there is.
import { unknownValueMessage } from '../core/suggest.ts';
import type { Store } from '../storage/store.ts';
import { UsageError } from './format.ts';

/** The judge `given` means among `known`, and how it was chosen; a usage error when it names none or several. */
export function chooseJudge(
  given: string | undefined,
  known: readonly string[],
): { judge: string; note?: string } {
  if (given === undefined || given === '') {
    if (known.length === 1)
      return {
        judge: known[0]!,
        note: `--judge not given: using the only judge in the database, ${known[0]}`,
      };
    throw new UsageError(
      known.length
        ? `--judge is required: the database has ${known.length} judges (${known.join(', ')})`
        : `--judge: there are no judges in the database yet (see \`arena judges\`)`,
    );
  }
  if (known.includes(given)) return { judge: given };
  const bySuffix = known.filter((k) => k.endsWith(`/${given}`));
  if (bySuffix.length === 1) return { judge: bySuffix[0]!, note: `--judge ${given}: using ${bySuffix[0]}` };
  throw new UsageError(`--judge: ${unknownValueMessage('judge', given, known)} (see \`arena judges\`)`);
}

/** `chooseJudge` over the store's judges, its note on stderr (stdout stays a table or JSON). */
export async function resolveJudge(
  store: { games: Pick<Store['games'], 'judges'> },
  given: string | undefined,
): Promise<string> {
  const { judge, note } = chooseJudge(
    given,
    (await store.games.judges()).map((j) => j.judge),
  );
  if (note) process.stderr.write(`arena: ${note}\n`);
  return judge;
}
