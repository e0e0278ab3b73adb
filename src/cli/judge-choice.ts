// Which judge a one-judge command reads: the one named (or the only one ending in "/NAME"), or, when --judge is
// left out, the only judge the database has. A choice the user did not spell out is said in one line on stderr,
// so stdout (a table or --json) stays the same.
import { unknownValueMessage } from '../core/suggest.ts';
import type { Store } from '../storage/store.ts';
import { UsageError } from './format.ts';

/** The judge `given` means among `known`, and how it was chosen; a usage error when it names none or several. */
export function chooseJudge(
  given: string | undefined,
  known: readonly string[],
  option = 'judge',
): { judge: string; note?: string } {
  if (given === undefined || given === '') {
    if (known.length === 1)
      return {
        judge: known[0]!,
        note: `--${option} not given: using the only judge in the database, ${known[0]}`,
      };
    throw new UsageError(
      known.length
        ? `--${option} is required: the database has ${known.length} judges (${known.join(', ')})`
        : `--${option}: there are no judges in the database yet (see \`arena judges\`)`,
    );
  }
  if (known.includes(given)) return { judge: given };
  const bySuffix = known.filter((k) => k.endsWith(`/${given}`));
  if (bySuffix.length === 1)
    return { judge: bySuffix[0]!, note: `--${option} ${given}: using ${bySuffix[0]}` };
  throw new UsageError(`--${option}: ${unknownValueMessage('judge', given, known)} (see \`arena judges\`)`);
}

/** `chooseJudge` over the store's judges, printing its note (if any) on stderr. */
export async function resolveJudge(
  store: { games: Pick<Store['games'], 'judges'> },
  given: string | undefined,
  option = 'judge',
): Promise<string> {
  const { judge, note } = chooseJudge(
    given,
    (await store.games.judges()).map((j) => j.judge),
    option,
  );
  if (note) process.stderr.write(`arena: ${note}\n`);
  return judge;
}
