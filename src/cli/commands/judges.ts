import { defineCommand } from 'citty';
import { list, table, UsageError } from '../format.ts';
import { dbArg, jsonArg, print, printTable, printJson, withStore } from '../shared.ts';
import { PEOPLE_JUDGE_NOTES } from '../../core/constants.ts';
import { pctWithInterval, readLikeForLike } from '../../core/judge-reading.ts';

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
      description:
        "list this judge's games with their verdict probabilities, entropy and (where computed) SoftEnt-Cali reliability",
    },
    board: {
      type: 'boolean',
      description:
        'the judge leaderboard: agreement with the experts, accuracy on labelled sets, consistency, position preference, errors, ties, longer-answer share, cost and time, with intervals',
    },
  },
  subCommands: {
    jury: () => import('./jury.ts').then((m) => m.juryCommand),
    succession: () => import('./succession.ts').then((m) => m.successionCommand),
    check: () => import('./judges-check.ts').then((m) => m.checkCommand),
  },
  async run({ args }) {
    if (args.board)
      return (await import('./pairs.ts')).printBoard(args.db, {
        ...(args.json ? { json: true } : {}),
        ...(args.judge ? { judges: list(args.judge)! } : {}),
      });
    await withStore(args.db, { readonly: true }, async (store) => {
      const { gameConfidences, judgesReport } = await import('../../reports/judge-quality/quality-report.ts');
      if (args.games) {
        const rows = await gameConfidences(store, args.games);
        return args.json ? printJson(rows) : print(table(rows));
      }
      if (args.json && !args.report) return printJson(await store.games.judges());
      if (args.judge) {
        // a misspelled judge was left out silently (the report of "llama2,gpt-4" was gpt-4's alone)
        const known = (await store.games.judges()).map((j) => j.judge);
        const unknown = list(args.judge)!.filter((j) => !known.includes(j));
        if (unknown.length)
          throw new UsageError(
            `--judge: no tournament games or votes for ${unknown.map((j) => `"${j}"`).join(', ')} (judges: ${known.join(', ') || 'none'}); a judge of labelled pair sets is read with \`arena accuracy\` or \`arena judges --board\``,
          );
      }
      const r = await judgesReport(store, list(args.judge));
      if (args.json) return printJson(r);
      const rows = args.judge ? r.judges : await store.games.judges();
      print(table(rows));
      for (const { judge } of rows)
        if (PEOPLE_JUDGE_NOTES[judge]) print(`${judge}: ${PEOPLE_JUDGE_NOTES[judge]}`);
      for (const a of r.allowance)
        print(
          `${a.judge}: ${a.games} game(s) of its newest run without a verdict because reasoning used the whole allowance (billed; raise settings.maxTokens or lower the reasoning effort)`,
        );
      if (!r.quality.length) return;
      print('\njudgment quality (turn 0 = all turns; errors counted per match: one game / both games)');
      printTable(r.quality, (q) => ({
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
      }));
      if (r.agreement.length) {
        print('\nagreement between judges');
        print(table(r.agreement, ['judge1', 'judge2', 'turn', 'setup', 'total', 'agree', 'ratio']));
        print('\nPearson correlation of win rates across models (matches both judged)');
        const correlation = r.correlation.map((c) => ({ ...c, 'win rate': c.variant }));
        print(table(correlation, ['judge1', 'judge2', 'win rate', 'models', 'matches', 'r']));
      }
      for (const l of r.likeForLike) {
        print(`\n${l.judges[0].judge} and ${l.judges[1].judge} like for like`);
        print(readLikeForLike(l));
        print(
          table(
            l.judges.flatMap((j) =>
              j.agreement.map((a) => ({
                judge: j.judge,
                turn: a.turn,
                setup: a.setup,
                'agree / votes': `${a.agree} / ${a.total}`,
                'agreement with the experts': pctWithInterval(a),
              })),
            ),
          ),
        );
      }
    });
  },
});
