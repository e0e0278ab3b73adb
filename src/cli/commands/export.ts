import { defineCommand } from 'citty';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportFastchat } from '../../reports/export.ts';
import { dbArg, print, withJudge } from '../shared.ts';
import { ArenaError } from '../../core/types.ts';
import { refuseDatabaseOutput, writeOutputFile } from '../out-file.ts';
import { exportVotesCommand } from './export-votes.ts';

const exportFastchatCommand = defineCommand({
  meta: {
    name: 'fastchat',
    description: "FastChat's <judge>_pair.jsonl / <judge>_single.jsonl (model_judgment shape)",
  },
  args: {
    ...dbArg,
    judge: { type: 'string', description: 'judge to export (see `arena judges`; default: the only judge)' },
    out: { type: 'string', required: true, description: 'output directory', valueHint: 'DIR' },
  },
  async run({ args }) {
    await withJudge(args, async (store, judge) => {
      const files = await exportFastchat(store, judge);
      // nothing to write is an error, not an empty folder
      if (!files.length)
        throw new ArenaError(
          `judge "${judge}" has no ${(await store.games.judges()).find((j) => j.judge === judge)?.votes ? "games (only recorded votes, which FastChat's judgment files cannot hold)" : 'complete matches (both orders) or single grades'} in ${args.db}; nothing exported`,
        );
      for (const f of files) refuseDatabaseOutput(join(args.out, f.name), args.db);
      mkdirSync(args.out, { recursive: true });
      for (const f of files) {
        const text = f.lines.map((l) => `${l}\n`).join('');
        await writeOutputFile(join(args.out, f.name), args.db, (tmp) => writeFileSync(tmp, text));
        print(`${join(args.out, f.name)}: ${f.lines.length} lines`);
      }
    });
  },
});

export const exportCommand = defineCommand({
  meta: { name: 'export', description: "write games and votes back out in other tools' formats" },
  subCommands: { fastchat: exportFastchatCommand, votes: exportVotesCommand },
});
