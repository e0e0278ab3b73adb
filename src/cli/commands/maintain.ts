import * as figures from '../../core/format.ts';
import { runSeen } from '../../core/run-seen.ts';
import { defineCommand } from 'citty';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportFastchat } from '../../reports/export.ts';
import { reparse } from '../../engine/reparse.ts';
import { list, oneOf, table, UsageError } from '../format.ts';
import { dbArg, jsonArg, print, printJson, withStore } from '../shared.ts';
import { ArenaError } from '../../core/types.ts';
import { checkJudge } from '../validate.ts';

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
        "last | fastchat | lenient (the Judge Llama 2 study's ladder: [[A]], [[Assistant A]], [Assistant A], [A], exact A)",
    },
    'dry-run': { type: 'boolean', description: 'report, change nothing' },
  },
  async run({ args }) {
    const parser = oneOf(args.parser, 'parser', ['last', 'fastchat', 'lenient'] as const)!;
    await withStore(
      args.db,
      async (store) => {
        if (args.judge) {
          // a misspelled judge would re-parse nothing and say so with exit 0: name the judges that have games instead
          const known = new Set([
            ...(await store.listJudges()).filter((j) => j.games > 0).map((j) => j.judge),
            ...(await store.listPairSets()).flatMap((s) => s.judges.map((j) => j.judge)),
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
        const stored = Object.entries(r.storedParsers)
          .map(([p, n]) => `${n} ${p}`)
          .join(', ');
        const e = r.errorsByParser;
        print(
          `unparsable (error) verdicts each parser leaves: stored ${e.stored} (${stored || 'no games'}), fastchat ${e.fastchat}, last ${e.last}, lenient ${e.lenient}`,
        );
        if (r.changes.length)
          print(
            table(
              r.changes.slice(0, 20).map((c) => ({
                game: c.id.slice(0, 12),
                question: c.questionId,
                turn: c.turn,
                order: c.order,
                from: c.from,
                to: c.to,
              })),
            ),
          );
      },
      { mustExist: true },
    );
  },
});

const exportFastchatCommand = defineCommand({
  meta: {
    name: 'fastchat',
    description: "FastChat's <judge>_pair.jsonl / <judge>_single.jsonl (model_judgment shape)",
  },
  args: {
    ...dbArg,
    judge: { type: 'string', required: true, description: 'judge to export (see `arena judges`)' },
    out: { type: 'string', required: true, description: 'output directory', valueHint: 'DIR' },
  },
  async run({ args }) {
    await withStore(
      args.db,
      async (store) => {
        await checkJudge(store, args.judge);
        const files = await exportFastchat(store, args.judge);
        // nothing to write is an error, not an empty folder
        if (!files.length)
          throw new ArenaError(
            `judge "${args.judge}" has no ${(await store.listJudges()).find((j) => j.judge === args.judge)?.votes ? "games (only recorded votes, which FastChat's judgment files cannot hold)" : 'complete matches (both orders) or single grades'} in ${args.db}; nothing exported`,
          );
        mkdirSync(args.out, { recursive: true });
        for (const f of files) {
          writeFileSync(join(args.out, f.name), f.lines.map((l) => `${l}\n`).join(''));
          print(`${join(args.out, f.name)}: ${f.lines.length} lines`);
        }
      },
      { readonly: true },
    );
  },
});

export const exportCommand = defineCommand({
  meta: { name: 'export', description: "write games back out in other tools' formats" },
  subCommands: {
    fastchat: exportFastchatCommand,
  },
});

export const judgesCommand = defineCommand({
  meta: {
    name: 'judges',
    description:
      'the judges in the database, and the judgment-quality report: per judge and turn errors, empty replies, consistency, ties; agreement and win-rate correlation between judges',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: {
      type: 'string',
      description:
        'comma-separated judges to report on and compare (default: every judge with games; name "human" to compare with the experts\' votes)',
    },
    report: {
      type: 'boolean',
      description: 'with --json: print the full report object instead of the judge list',
    },
    games: {
      type: 'string',
      description: "list this judge's games with their verdict probabilities and entropy",
    },
    board: {
      type: 'boolean',
      description:
        'the judge leaderboard: agreement with the experts, accuracy on labelled sets, consistency, position preference, errors, ties, longer-answer share, cost and time, with intervals',
    },
  },
  async run({ args }) {
    if (args.board)
      return (await import('./pairs.ts')).printBoard(args.db, {
        ...(args.json ? { json: true } : {}),
        ...(args.judge ? { judges: list(args.judge)! } : {}),
      });
    await withStore(
      args.db,
      async (store) => {
        const { gameConfidences, judgesReport } = await import('../../reports/judges/quality-report.ts');
        if (args.games) {
          const rows = await gameConfidences(store, args.games);
          if (args.json) return printJson(rows);
          return print(table(rows));
        }
        if (args.json && !args.report) return printJson(await store.listJudges());
        if (args.judge) {
          // a misspelled judge was left out silently (the report of "llama2,gpt-4" was gpt-4's alone)
          const known = (await store.listJudges()).map((j) => j.judge);
          const unknown = list(args.judge)!.filter((j) => !known.includes(j));
          if (unknown.length)
            throw new UsageError(
              `--judge: no tournament games or votes for ${unknown.map((j) => `"${j}"`).join(', ')} (judges: ${known.join(', ') || 'none'}); a judge of labelled pair sets is read with \`arena accuracy\` or \`arena judges --board\``,
            );
        }
        const r = await judgesReport(store, list(args.judge));
        if (args.json) return printJson(r);
        const rows = args.judge ? r.judges : await store.listJudges();
        print(table(rows as never));
        if (!r.quality.length) return;
        print('\njudgment quality (turn 0 = all turns; errors counted per match: one game / both games)');
        print(
          table(
            r.quality.map((q) => ({
              judge: q.judge,
              turn: q.turn,
              games: q.games,
              matches: q.matches,
              'err 1 game': q.errorsOneGame,
              'err both': q.errorsBothGames,
              empty: q.emptyReplies,
              consistent: q.consistent,
              inconsistent: q.inconsistent,
              ties: q.ties,
              'mean conf': q.meanConfidence,
              'mean entropy': q.meanEntropy,
            })),
          ),
        );
        if (r.agreement.length) {
          print('\nagreement between judges');
          print(
            table(
              r.agreement.map((a) => ({
                judge1: a.judge1,
                judge2: a.judge2,
                turn: a.turn,
                setup: a.setup,
                total: a.total,
                agree: a.agree,
                ratio: a.ratio,
              })),
            ),
          );
          print('\nPearson correlation of win rates across models (matches both judged)');
          print(
            table(
              r.correlation.map((c) => ({
                judge1: c.judge1,
                judge2: c.judge2,
                'win rate': c.variant,
                models: c.models,
                matches: c.matches,
                r: c.r,
              })),
            ),
          );
        }
      },
      { readonly: true },
    );
  },
});

export const runsCommand = defineCommand({
  meta: {
    name: 'runs',
    description: 'the runs, newest first (as the site lists them): when, which judge, how many games, tokens',
  },
  args: { ...dbArg, ...jsonArg },
  async run({ args }) {
    await withStore(
      args.db,
      async (store) => {
        const now = Date.now();
        const rows = (await store.listRuns())
          .map((r) => runSeen(r, now))
          .sort((a, b) => b.startedAt - a.startedAt);
        if (args.json) return printJson(rows);
        // figures spelled as the site's /runs page spells them (core/format.ts)
        print(
          table(
            rows.map((r) => ({
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
            })),
          ),
        );
      },
      { readonly: true },
    );
  },
});
