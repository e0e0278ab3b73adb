import { defineCommand } from 'citty';
import { writeFileSync } from 'node:fs';
import { refuseDatabaseOutput, writeOutputFile } from '../out-file.ts';
import { int, num } from '../format.ts';
import * as figures from '../../core/format.ts';
import { dbArg, jsonArg, print, printTable, printJson, withStore } from '../shared.ts';
import { HUMAN } from '../../core/constants.ts';
import { pct, fix } from './analytics-shared.ts';
import { calibrateArgs } from './calibrate.ts';

const reviewCommon = {
  ...dbArg,
  judge: {
    type: 'string',
    required: true,
    description: 'the calibrated judge (with or without the +fair suffix)',
  },
  beta: { type: 'string', default: '0.2', description: 'share of matches to review (top by entropy)' },
  ...calibrateArgs,
} as const;

function reviewOptions(args: { beta?: string; samples?: string }) {
  return { beta: num(args.beta, 'beta')!, samples: int(args.samples, 'samples')! };
}

export const reviewCommand = defineCommand({
  meta: {
    name: 'review',
    description:
      'human-in-the-loop queue: matches ranked by balanced-position diversity entropy; list, export, import labels, report',
  },
  subCommands: {
    list: defineCommand({
      meta: {
        name: 'list',
        description: 'the top β share of matches by entropy of their 2k calibrated samples',
      },
      args: { ...reviewCommon, ...jsonArg } as const,
      async run({ args }) {
        const { reviewQueue } = await import('../../engine/calibrated.ts');
        await withStore(args.db, { readonly: true }, async (store) => {
          const q = await reviewQueue(store, args.judge, reviewOptions(args));
          if (args.json) return printJson(q);
          if (!q.length)
            return print(`no calibrated matches for judge "${args.judge}" (run \`arena calibrate\` first)`);
          // SoftEnt-Cali beside the entropy when the judge computed it (--reliability softent-cali)
          const softent = q.some((r) => r.softEntCali !== null);
          printTable(q, (r) => ({
            question: r.questionId,
            turn: r.turn,
            category: r.category,
            model1: r.model1,
            model2: r.model2,
            entropy: fix(r.entropy, 3),
            ...(softent ? { 'softent-cali': r.softEntCali === null ? '' : fix(r.softEntCali, 3) } : {}),
            verdict: r.verdict,
            score1: r.score1 === null ? '' : fix(r.score1, 2),
            score2: r.score2 === null ? '' : fix(r.score2, 2),
            unparsable: r.unparsable,
          }));
        });
      },
    }),
    export: defineCommand({
      meta: {
        name: 'export',
        description: 'write the queue as JSONL for annotators (fill in "label": model_1 | model_2 | tie)',
      },
      args: {
        ...reviewCommon,
        out: { type: 'string', description: 'output file (default: stdout)', valueHint: 'FILE' },
      } as const,
      async run({ args }) {
        const { exportReview } = await import('../../engine/calibrated.ts');
        if (args.out) refuseDatabaseOutput(args.out, args.db);
        await withStore(args.db, { readonly: true }, async (store) => {
          const text = await exportReview(store, args.judge, reviewOptions(args));
          if (!args.out) return process.stdout.write(text);
          await writeOutputFile(args.out, args.db, (tmp) => writeFileSync(tmp, text));
          print(`wrote ${text ? text.trimEnd().split('\n').length : 0} matches to ${args.out}`);
        });
      },
    }),
    import: defineCommand({
      meta: {
        name: 'import',
        description:
          'import a labelled review file (labels are stored as votes of the judge "review"; importing the file again replaces them)',
      },
      args: {
        ...dbArg,
        file: { type: 'positional', required: true, description: 'the labelled JSONL file' },
      } as const,
      async run({ args }) {
        const { importReview } = await import('../../engine/calibrated.ts');
        await withStore(args.db, { mustExist: true }, async (store) => {
          const r = await importReview(store, args.file);
          print(
            `imported ${r.labels} labels from ${args.file}${r.unlabelled ? ` (${r.unlabelled} lines still without a label)` : ''}`,
          );
        });
      },
    }),
    report: defineCommand({
      meta: {
        name: 'report',
        description:
          'accuracy and kappa against human votes: first sample, MEC+BPC, and MEC+BPC with the reviewed share replaced by the labels',
      },
      args: {
        ...dbArg,
        ...jsonArg,
        judge: reviewCommon.judge,
        samples: calibrateArgs.samples,
        truth: { type: 'string', default: HUMAN, description: 'the judge whose votes are the truth' },
      } as const,
      async run({ args }) {
        const { reviewReport } = await import('../../engine/calibrated.ts');
        await withStore(args.db, { readonly: true }, async (store) => {
          const r = await reviewReport(store, args.judge, {
            truth: args.truth,
            samples: int(args.samples, 'samples')!,
          });
          if (args.json) return printJson(r);
          print(
            `${r.judge} against "${r.truth}" votes: ${r.matches} matches, ${r.reviewed} reviewed (${pct(r.beta)})\n`,
          );
          printTable(r.rows, (x) => ({
            variant: x.variant,
            compared: x.n,
            accuracy: pct(x.accuracy),
            kappa: figures.kappa(x.kappa),
          }));
        });
      },
    }),
  },
});
