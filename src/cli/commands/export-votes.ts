// `arena export votes`: a judge's recorded votes as JSON Lines in the HF shape `arena import` reads back.
import { defineCommand } from 'citty';
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { exportVotes } from '../../reports/export-votes.ts';
import { ArenaError } from '../../core/types.ts';
import { refuseDatabaseOutput, writeOutputFile } from '../out-file.ts';
import { UsageError } from '../format.ts';
import { dbArg, print, withStore } from '../shared.ts';
import { checkJudges } from '../validate.ts';

const Out = z.string().regex(/\.jsonl$/, 'the file is JSON Lines: its name ends in .jsonl');

export const exportVotesCommand = defineCommand({
  meta: {
    name: 'votes',
    description:
      "a judge's recorded votes (e.g. --judge annotators or human) in the HF mt_bench_human_judgments shape (JSONL)",
  },
  args: {
    ...dbArg,
    judge: { type: 'string', required: true, description: 'whose votes (see `arena judges`)' },
    out: { type: 'string', required: true, description: 'output file (.jsonl)', valueHint: 'FILE' },
  },
  async run({ args }) {
    const out = Out.safeParse(args.out);
    if (!out.success) throw new UsageError(`--out ${args.out}: ${out.error.issues[0]!.message}`);
    refuseDatabaseOutput(args.out, args.db);
    await withStore(args.db, { readonly: true }, async (store) => {
      await checkJudges(store, [args.judge]);
      const rows = await exportVotes(store, args.judge);
      if (!rows.length)
        throw new ArenaError(`judge "${args.judge}" has no recorded votes in ${args.db}; nothing exported`);
      const text = rows.map((r) => `${JSON.stringify(r)}\n`).join('');
      await writeOutputFile(args.out, args.db, (tmp) => writeFileSync(tmp, text));
      print(`${args.out}: ${rows.length} votes of ${args.judge}`);
    });
  },
});
