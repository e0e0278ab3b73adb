import { defineCommand } from 'citty';
import type { BiasDimension } from '../../core/bias.ts';
import { DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED } from '../../core/bootstrap.ts';
import { biasReport, intervalReport, kappaReport, lengthReport } from '../../engine/analytics.ts';
import { int, list, num, oneOf, table, UsageError } from '../format.ts';
import { dbArg, jsonArg, openStore, print, printJson } from '../shared.ts';

const pct = (x: number | null | undefined) => (x === null || x === undefined || Number.isNaN(x) ? '' : `${(100 * x).toFixed(1)}%`);
const fix = (x: number, d = 1) => (Number.isNaN(x) ? '' : Number(x.toFixed(d)));

const bootArgs = {
  rounds: { type: 'string', default: String(DEFAULT_ROUNDS), description: 'bootstrap rounds' },
  level: { type: 'string', default: String(DEFAULT_LEVEL), description: 'interval level (0.95: the 2.5% and 97.5% percentiles)' },
  seed: { type: 'string', default: String(DEFAULT_SEED), description: 'seed of the resampling (same seed, same intervals)' },
} as const;

function bootOptions(args: { rounds?: string; level?: string; seed?: string }) {
  const rounds = int(args.rounds, 'rounds')!;
  const level = num(args.level, 'level')!;
  if (rounds < 1) throw new UsageError(`--rounds must be at least 1, got ${rounds}`);
  if (!(level > 0 && level < 1)) throw new UsageError(`--level must lie between 0 and 1, got ${level}`);
  return { rounds, level, seed: int(args.seed, 'seed')! };
}

export const biasCommand = defineCommand({
  meta: { name: 'bias', description: "position bias of a judge: model 1's win rate when shown first and second, and the conflict rate (the two orders disagree)" },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: { type: 'string', required: true, description: 'judge name (see `arena judges`)' },
    by: { type: 'string', default: 'pair', description: 'group rows by any of pair, category, turn (comma-separated; "" pools everything)' },
  },
  async run({ args }) {
    const by = (list(args.by) ?? []).map((d) => oneOf(d, 'by', ['pair', 'category', 'turn'] as const)!) as BiasDimension[];
    const store = openStore(args.db, { mustExist: true });
    try {
      const r = await biasReport(store, args.judge, by);
      if (args.json) return printJson(r);
      if (!r.games.length && !r.recorded.length) return print(`no pairwise games or recorded verdicts for judge "${args.judge}" (see \`arena judges\`)`);
      if (r.games.length) {
        print(`position bias of ${args.judge}, from games judged in both orders:`);
        print(
          table(
            r.games.map((g) => ({
              pair: g.pair,
              category: g.category,
              turn: g.turn,
              games: g.games,
              errors: g.errors,
              'model 1 wins shown first': pct(g.winFirst),
              'shown second': pct(g.winSecond),
              'picks position A': pct(g.positionA),
              matches: g.matches,
              conflict: pct(g.conflict),
              'favours first': g.favoursFirst,
              'favours second': g.favoursSecond,
              'one tie': g.withTie,
            })),
          ),
        );
      }
      if (r.recorded.length) {
        print(`${r.games.length ? '\n' : ''}conflict rate of ${args.judge}'s recorded verdicts (combined outcomes only: no per-order games, so no per-order win rates):`);
        print(table(r.recorded.map((c) => ({ pair: c.pair, category: c.category, turn: c.turn, matches: c.matches, inconsistent: c.inconsistent, conflict: pct(c.conflict), ties: c.ties }))));
      }
    } finally {
      await store.close();
    }
  },
});

export const kappaCommand = defineCommand({
  meta: { name: 'kappa', description: "agreement (S1 with ties, S2 without) with Cohen's kappa and question-level bootstrap intervals, per turn (and category)" },
  args: {
    ...dbArg,
    ...jsonArg,
    judges: { type: 'string', required: true, description: 'two judges, e.g. gpt-4,human or human,human' },
    category: { type: 'boolean', description: 'also one row per category' },
    ...bootArgs,
  },
  async run({ args }) {
    const judges = list(args.judges) ?? [];
    if (judges.length !== 2) throw new UsageError(`--judges expects two comma-separated judges, got "${args.judges}"`);
    const o = bootOptions(args);
    const store = openStore(args.db, { mustExist: true });
    try {
      const rows = await kappaReport(store, judges[0]!, judges[1]!, { ...o, byCategory: Boolean(args.category) });
      if (args.json) return printJson(rows);
      print(table(rows.map((r) => ({ turn: r.turn, category: r.category, setup: r.setup, total: r.total, agree: r.agree, ratio: fix(r.ratio, 4), kappa: fix(r.kappa, 3), lo: fix(r.lo, 3), hi: fix(r.hi, 3) }))));
      print(`\nkappa intervals: ${Math.round(o.level * 100)}% bootstrap percentile intervals, questions resampled, ${o.rounds} rounds, seed ${o.seed}`);
    } finally {
      await store.close();
    }
  },
});

export const intervalsCommand = defineCommand({
  meta: { name: 'intervals', description: 'Bradley–Terry ratings and win rates with bootstrap intervals (questions resampled) and a rank that respects them' },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: { type: 'string', required: true, description: 'judge name (human = expert votes)' },
    unit: { type: 'string', default: 'question', description: 'question (all games of a question move together) | game (single games; too narrow when games of a question are correlated)' },
    turn: { type: 'string', description: '1 or 2 (default: both)' },
    ...bootArgs,
  },
  async run({ args }) {
    const unit = oneOf(args.unit, 'unit', ['question', 'game'] as const)!;
    const turn = int(args.turn, 'turn');
    const o = bootOptions(args);
    const store = openStore(args.db, { mustExist: true });
    try {
      const r = await intervalReport(store, args.judge, { ...o, unit, ...(turn !== undefined ? { turn } : {}) });
      if (args.json) return printJson(r);
      if (!r.ratings.rows.length) return print(`no pairwise results for judge "${args.judge}" (see \`arena judges\`)`);
      const lvl = `${Math.round(o.level * 100)}%`;
      const wr = new Map(r.winRates.map((w) => [w.model, w]));
      print(
        table(
          r.ratings.rows.map((x) => {
            const w = wr.get(x.model)!;
            return { rank: x.rank, model: x.model, rating: fix(x.rating), [`${lvl} lo`]: fix(x.lo), [`${lvl} hi`]: fix(x.hi), matches: w.matches, 'win rate': pct(w.winRate), 'win lo': pct(w.lo), 'win hi': pct(w.hi) };
          }),
        ),
      );
      print(`\n${lvl} bootstrap percentile intervals, ${unit === 'question' ? 'questions resampled (both turns and both orders move together)' : 'single games resampled'}, ${o.rounds} rounds, seed ${o.seed}; rank = 1 + models whose interval lies wholly above`);
    } finally {
      await store.close();
    }
  },
});

export const lengthCommand = defineCommand({
  meta: { name: 'length', description: 'length awareness: share of decisive verdicts that went to the longer answer; length-controlled win rates beside the raw ones' },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: { type: 'string', required: true, description: 'judge name (human = expert votes)' },
    turn: { type: 'string', description: '1 or 2 (default: both)' },
  },
  async run({ args }) {
    const turn = int(args.turn, 'turn');
    const store = openStore(args.db, { mustExist: true });
    try {
      const r = await lengthReport(store, args.judge, turn !== undefined ? { turn } : {});
      if (args.json) return printJson(r);
      const l = r.longer;
      print(`${args.judge}: ${l.toLonger} of ${l.decisive} decisive verdicts (${pct(l.share)}) went to the longer answer${l.equalLength ? ` (${l.equalLength} between equal lengths left out)` : ''}${r.missingAnswers ? `; ${r.missingAnswers} matches left out: answers not in the database` : ''}\n`);
      print(table(r.models.map((m) => ({ model: m.model, matches: m.n, 'win rate': pct(m.winRate), 'length-controlled': pct(m.lcWinRate), 'log-odds per 1000 chars': fix(m.slope, 3), 'mean length diff': fix(m.meanLengthDiff, 0) }))));
      print('\nlength-controlled: logistic model of winning on the length difference to the opponent, evaluated at zero difference (ties count half)');
    } finally {
      await store.close();
    }
  },
});
