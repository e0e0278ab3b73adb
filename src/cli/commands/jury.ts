// `arena judges jury --config FILE`: every jury a config defines, read from the database (src/reports/jury.ts).
import { defineCommand } from 'citty';
import { agreementTable, table, withInterval } from '../format.ts';
import { dbArg, print, printTable, printJson, withStore } from '../shared.ts';
import { pct } from '../../core/format.ts';
import type { JuryReport } from '../../reports/jury.ts';

export const juryCommand = defineCommand({
  meta: {
    name: 'jury',
    description:
      "the juries a config defines (\"juries\": [{ name, judges, rule }]): each jury's leaderboard pooled from its members' stored verdicts, each member's agreement with the others, the effective number of independent votes, and agreement with people next to each member's",
  },
  args: {
    ...dbArg,
    json: { type: 'boolean', description: "print one JSON array of the juries' reports" },
    config: { type: 'string', required: true, description: 'a config file with "juries"', valueHint: 'FILE' },
    name: { type: 'string', description: 'only this jury (default: every jury of the config)' },
  },
  async run({ args }) {
    const { loadJuries } = await import('../../ops/config.ts');
    const { pickJury } = await import('../../ops/judges-config.ts');
    const { juryReport } = await import('../../reports/jury.ts');
    const all = loadJuries(args.config);
    const juries = args.name ? [pickJury(args.config, all, args.name)] : all;
    await withStore(args.db, { readonly: true }, async (store) => {
      const reports: JuryReport[] = [];
      for (const j of juries) reports.push(await juryReport(store, j));
      if (args.json) return printJson(reports);
      for (const r of reports) printJury(r);
    });
  },
});

function printJury(r: JuryReport): void {
  print(
    `\n${r.jury} (${r.rule} of ${r.members.join(', ')}): ${r.matches} matches, ${r.errors} pooled to an error`,
  );
  print(table(r.standings));
  print('\nmembers side by side (all turns; kappa with a 95% question-bootstrap interval)');
  printTable(r.pairs, (p) => ({
    judge1: p.judge1,
    judge2: p.judge2,
    matches: p.withTie.total,
    agreement: pct(p.withTie.ratio),
    kappa: withInterval(p.withTie.kappa.toFixed(3), p.withTie.lo, p.withTie.hi, (v) => v.toFixed(3)),
    'agreement w/o ties': pct(p.withoutTie.ratio),
  }));
  print(
    '\nposition bias (from games; a member known only by recorded verdicts has none, nor then has the jury)',
  );
  printTable(r.bias, (b) => ({
    judge: b.judge,
    games: b.games,
    'first position': b.positionA === null ? '–' : pct(b.positionA),
    'orders disagree': b.conflict === null ? '–' : pct(b.conflict),
    'sign test p': b.signTestP ?? '–',
  }));
  print(`effective independent votes: ${r.effectiveVotes.toFixed(2)} of ${r.members.length}; ${r.formula}`);
  for (const p of r.people) {
    print(`\nagreement with ${p.people} (${p.votes} votes), per turn, with and without ties`);
    print(agreementTable(p.rows));
  }
}
