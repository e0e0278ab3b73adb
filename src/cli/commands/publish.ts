import { defineCommand } from 'citty';
import { publishToD1, writePublishSql } from '../../entry/publish.ts';
import { refuseDatabaseOutput, writeOutputFile } from '../out-file.ts';
import { pullSiteVotes } from '../../entry/site-votes.ts';
import { dbArg, print, withStore } from '../shared.ts';
import { updateReportsOf, workerPages } from '../reports.ts';
import { wranglerVars } from '../../entry/wrangler.ts';

export const publishCommand = defineCommand({
  meta: {
    name: 'publish',
    description: "push a local database's rows to the leaderboard's D1 database (wrangler d1 execute)",
  },
  args: {
    ...dbArg,
    database: { type: 'string', default: 'mt-arena', description: 'D1 database name (wrangler.toml)' },
    remote: {
      type: 'boolean',
      description: 'write to the deployed D1 (default: the local one that `wrangler dev` uses)',
    },
    'persist-to': { type: 'string', description: 'wrangler --persist-to directory for the local D1' },
    out: { type: 'string', description: 'only write the SQL to this file' },
  },
  async run({ args }) {
    const out = args.out;
    if (out) refuseDatabaseOutput(out, args.db);
    const target = {
      database: args.database,
      remote: !!args.remote,
      persistTo: args['persist-to'],
      output: 'stdout' as const,
    };
    // the votes cast on the site first: they are counted in the reports, and D1 keeps them (docs/annotators.md)
    if (!out) await withStore(args.db, { mustExist: true }, (store) => pullSiteVotes(store, target, print));
    // the reports and pages go with the rows, rendered as the Worker of wrangler.toml's [vars] renders them
    const pages = workerPages(wranglerVars(process.cwd()));
    await updateReportsOf(args.db, { progress: true, worker: pages });
    await withStore(args.db, { readonly: true }, async (store) => {
      if (out) {
        const n = await writeOutputFile(out, args.db, (tmp) => writePublishSql(store.sqlite, tmp));
        return print(`wrote ${n} statements to ${out}`);
      }
      const n = await publishToD1(store.sqlite, target, print);
      print(
        `published ${args.db} to D1 ${args.database} (${args.remote ? 'remote' : 'local'}): ${n} statements`,
      );
    });
  },
});
