import { defineCommand } from 'citty';
import { UsageError } from '../format.ts';
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
    const counts = await withStore(args.db, (store) => store.games.prune(t, { dryRun }));
    if (!dryRun) await updateReportsOf(args.db);
    if (args.json) return printJson({ target: t, dryRun, removed: counts });
    print(summary(t, counts, dryRun));
  },
});

/** "removed from judge "x": 12 games, 0 votes, ..." (or "would remove" in a dry run). */
function summary(t: PruneTarget, c: PruneCounts, dryRun: boolean): string {
  const total = Object.values(c).reduce((a, b) => a + b, 0);
  if (!total) return `nothing to remove for ${describe(t)}`;
  const parts = Object.entries(c).map(([k, n]) => `${n} ${k}`);
  return `${dryRun ? 'would remove' : 'removed'} for ${describe(t)}: ${parts.join(', ')}${dryRun ? ' (dry run: nothing changed)' : ''}`;
}
