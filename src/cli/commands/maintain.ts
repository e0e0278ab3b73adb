import { defineCommand } from 'citty';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportFastchat } from '../../engine/export.ts';
import { reparse } from '../../engine/reparse.ts';
import { oneOf, table } from '../format.ts';
import { dbArg, jsonArg, openStore, print, printJson } from '../shared.ts';

export const reparseCommand = defineCommand({
  meta: { name: 'reparse', description: 'parse the stored raw judge replies again (no judge calls) and report what changed' },
  args: {
    ...dbArg,
    judge: { type: 'string', description: 'only this judge (default: all)' },
    parser: { type: 'string', default: 'last', description: 'last | fastchat' },
    'dry-run': { type: 'boolean', description: 'report, change nothing' },
  },
  async run({ args }) {
    const parser = oneOf(args.parser, 'parser', ['last', 'fastchat'] as const)!;
    const store = openStore(args.db, { mustExist: true });
    try {
      const r = await reparse(store, { parser, ...(args.judge ? { judge: args.judge } : {}), dryRun: !!args['dry-run'] });
      print(`${r.games} games re-parsed with ${r.parser}: ${r.changed} verdict(s) ${args['dry-run'] ? 'would change' : 'changed'}, ${r.errors} unparsable`);
      if (r.changes.length) print(table(r.changes.slice(0, 20).map((c) => ({ game: c.id.slice(0, 12), question: c.questionId, turn: c.turn, order: c.order, from: c.from, to: c.to }))));
    } finally {
      await store.close();
    }
  },
});

const exportFastchatCommand = defineCommand({
      meta: { name: 'fastchat', description: "FastChat's <judge>_pair.jsonl / <judge>_single.jsonl (model_judgment shape)" },
      args: { ...dbArg, judge: { type: 'string', required: true }, out: { type: 'string', required: true, description: 'output directory' } },
      async run({ args }) {
        const store = openStore(args.db, { mustExist: true });
        try {
          const files = await exportFastchat(store, args.judge);
          mkdirSync(args.out, { recursive: true });
          for (const f of files) {
            writeFileSync(join(args.out, f.name), f.lines.map((l) => `${l}\n`).join(''));
            print(`${join(args.out, f.name)}: ${f.lines.length} lines`);
          }
          if (!files.length) print(`no games for judge "${args.judge}"`);
        } finally {
          await store.close();
        }
      },
    });

export const exportCommand = defineCommand({
  meta: { name: 'export', description: 'write games back out in other tools\' formats' },
  subCommands: {
    fastchat: exportFastchatCommand,
  },
});

export const judgesCommand = defineCommand({
  meta: { name: 'judges', description: 'the judges in the database, with their games and recorded votes' },
  args: { ...dbArg, ...jsonArg },
  async run({ args }) {
    const store = openStore(args.db, { mustExist: true });
    try {
      const rows = await store.listJudges();
      if (args.json) return printJson(rows);
      print(table(rows as never));
    } finally {
      await store.close();
    }
  },
});

export const runsCommand = defineCommand({
  meta: { name: 'runs', description: 'the runs: when, which judge, how many games, tokens' },
  args: { ...dbArg, ...jsonArg },
  async run({ args }) {
    const store = openStore(args.db, { mustExist: true });
    try {
      const rows = await store.listRuns();
      if (args.json) return printJson(rows);
      print(table(rows.map((r) => ({ id: r.id.slice(0, 8), started: new Date(r.startedAt).toISOString(), judge: r.judge, mode: r.mode, planned: r.planned, played: r.played, failed: r.failed, tokens: r.tokensIn + r.tokensOut, status: r.status }))));
    } finally {
      await store.close();
    }
  },
});
