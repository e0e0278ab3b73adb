import { defineCommand } from 'citty';
import { UsageError } from '../format.ts';
import { ArenaError } from '../../core/types.ts';
import type { Store } from '../../storage/store.ts';
import { dbArg, jsonArg, print, printJson, withStore } from '../shared.ts';
import { updateReportsOf } from '../reports.ts';
import type { PruneCounts, PruneTarget } from '../../storage/store.ts';

/** The one target of a prune, from --judge, --model or --run (exactly one of them). */
function target(a: { judge?: string; model?: string; run?: string }): PruneTarget {
  const given = (['judge', 'model', 'run'] as const).filter((k) => a[k] !== undefined);
  if (given.length !== 1)
    throw new UsageError('give exactly one of --judge J, --model M or --run R (what to remove)');
  const k = given[0]!;
  const v = a[k]!;
  if (!v) throw new UsageError(`--${k}: expected a name`);
  return k === 'judge' ? { judge: v } : k === 'model' ? { model: v } : { run: v };
}

const describe = (t: PruneTarget) =>
  'judge' in t ? `judge "${t.judge}"` : 'model' in t ? `model "${t.model}"` : `run "${t.run}"`;

/** What a target of this kind could name: "judges: a, b" (the newest runs first; at most 12 names). */
async function known(store: Store, t: PruneTarget): Promise<string> {
  let kind: string;
  let names: string[];
  if ('judge' in t) {
    const [judges, sets, runs] = await Promise.all([
      store.games.judges(),
      store.catalog.pairSets(),
      store.runs.list(),
    ]);
    kind = 'judges';
    names = [
      ...new Set([
        ...judges.map((j) => j.judge),
        ...sets.flatMap((s) => s.judges.map((j) => j.judge)),
        ...runs.map((r) => r.judge),
      ]),
    ].sort();
  } else if ('model' in t) {
    kind = 'models';
    names = await store.catalog.models();
  } else {
    kind = 'runs';
    names = (await store.runs.list(12)).map((r) => r.id).reverse();
  }
  if (!names.length) return `no ${kind}`;
  return `${kind}: ${names.slice(0, 12).join(', ')}${names.length > 12 ? `, ... (${names.length - 12} more)` : ''}`;
}

export const pruneCommand = defineCommand({
  meta: {
    name: 'prune',
    description:
      'remove what should not be in the database, in one transaction: a judge (games, votes, runs), a model (answers, games, votes) or a run (its games and record)',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: { type: 'string', description: "remove this judge's games, votes, runs and failed calls" },
    model: { type: 'string', description: "remove this model's answers and the games and votes it is in" },
    run: { type: 'string', description: "remove this run's games, failed calls and record" },
    'dry-run': { type: 'boolean', description: 'say what would be removed, change nothing' },
  },
  async run({ args }) {
    const t = target(args);
    const dryRun = Boolean(args['dry-run']);
    const counts = await withStore(args.db, {}, async (store) => {
      const c = await store.games.prune(t, { dryRun });
      // a name that matches nothing is most likely a typo: say so, with what there is, rather than succeed
      if (!Object.values(c).some((n) => n > 0))
        throw new ArenaError(`nothing to remove: no ${describe(t)} in ${args.db} (${await known(store, t)})`);
      return c;
    });
    if (!dryRun) await updateReportsOf(args.db);
    if (args.json) return printJson({ target: t, dryRun, removed: counts });
    print(summary(t, counts, dryRun));
  },
});

/** "removed from judge "x": 12 games, 0 votes, ..." (or "would remove" in a dry run). */
function summary(t: PruneTarget, c: PruneCounts, dryRun: boolean): string {
  const parts = Object.entries(c).map(([k, n]) => `${n} ${k}`);
  return `${dryRun ? 'would remove' : 'removed'} for ${describe(t)}: ${parts.join(', ')}${dryRun ? ' (dry run: nothing changed)' : ''}`;
}
