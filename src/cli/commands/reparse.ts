import { defineCommand } from 'citty';
import { reparse } from '../../engine/reparse.ts';
import { oneOf, UsageError } from '../format.ts';
import { dbArg, print, printTable, printJson, withStore } from '../shared.ts';
import { updateReportsOf } from '../reports.ts';

export const reparseCommand = defineCommand({
  meta: {
    name: 'reparse',
    description: 'parse the stored raw judge replies again (no judge calls) and report what changed',
  },
  args: {
    ...dbArg,
    judge: { type: 'string', description: 'only this judge (default: all)' },
    json: {
      type: 'boolean',
      description:
        'print the report as one JSON object (parser, games, changed, errors, errorsByParser, storedParsers, changes)',
    },
    parser: {
      type: 'string',
      default: 'last',
      description:
        "last | fastchat | lenient (the Judge Llama 2 study's ladder: [[A]], [[Assistant A]], [Assistant A], [A], exact A) | recorded (the verdicts the imported judgment files recorded, restored)",
    },
    'dry-run': { type: 'boolean', description: 'report, change nothing' },
  },
  async run({ args }) {
    const parser = oneOf(args.parser, 'parser', ['last', 'fastchat', 'lenient', 'recorded'] as const)!;
    await withStore(args.db, { mustExist: true }, async (store) => {
      if (args.judge) {
        // a misspelled judge would re-parse nothing and say so with exit 0: name the judges that have games instead
        const known = new Set([
          ...(await store.games.judges()).filter((j) => j.games > 0).map((j) => j.judge),
          ...(await store.catalog.pairSets()).flatMap((s) => s.judges.map((j) => j.judge)),
        ]);
        if (!known.has(args.judge))
          throw new UsageError(
            `--judge "${args.judge}" has no stored games (judges with games: ${[...known].sort().join(', ') || 'none'})`,
          );
      }
      const r = await reparse(store, {
        parser,
        ...(args.judge ? { judge: args.judge } : {}),
        dryRun: !!args['dry-run'],
      });
      if (args.json) return printJson(r);
      print(
        `${r.games} games re-parsed with ${r.parser}: ${r.changed} verdict(s) ${args['dry-run'] ? 'would change' : 'changed'}, ${r.errors} unparsable`,
      );
      if (r.unrecorded)
        print(
          `${r.unrecorded} game(s) have no recorded verdict (played here, not imported): left as they are`,
        );
      const stored = Object.entries(r.storedParsers)
        .map(([p, n]) => `${n} ${p}`)
        .join(', ');
      const e = r.errorsByParser;
      print(
        `unparsable (error) verdicts each parser leaves: stored ${e.stored} (${stored || 'no games'}), fastchat ${e.fastchat}, last ${e.last}, lenient ${e.lenient}`,
      );
      if (r.changes.length)
        printTable(r.changes.slice(0, 20), (c) => ({
          game: c.id.slice(0, 12),
          question: c.questionId,
          turn: c.turn,
          order: c.order,
          from: c.from,
          to: c.to,
        }));
    });
    if (!args['dry-run']) await updateReportsOf(args.db);
  },
});
