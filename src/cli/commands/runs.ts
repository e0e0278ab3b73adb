import { runSeen } from '../../core/run-seen.ts';
import * as figures from '../../core/format.ts';
import { defineCommand } from 'citty';
import { dbArg, jsonArg, printTable, printJson, withStore } from '../shared.ts';

export const runsCommand = defineCommand({
  meta: {
    name: 'runs',
    description: 'the runs, newest first (as the site lists them): when, which judge, how many games, tokens',
  },
  args: { ...dbArg, ...jsonArg },
  async run({ args }) {
    await withStore(args.db, { readonly: true }, async (store) => {
      const now = Date.now();
      const rows = (await store.runs.list())
        .map((r) => runSeen(r, now))
        .sort((a, b) => b.startedAt - a.startedAt);
      if (args.json) return printJson(rows);
      // figures spelled as the site's /runs page spells them (core/format.ts)
      printTable(rows, (r) => ({
        id: r.id.slice(0, 8),
        started: figures.time(r.startedAt),
        judge: r.judge,
        mode: r.mode,
        status: r.status,
        planned: figures.count(r.planned),
        played: figures.count(r.played),
        failed: figures.count(r.failed),
        'tokens in': figures.count(r.tokensIn),
        'tokens out': figures.count(r.tokensOut),
        cost: figures.usd(r.cost),
      }));
    });
  },
});
