import { printRatingVariant, TIES } from './ratings-variants.ts';
import { printStyleRatings } from './style-ratings.ts';
import { defineCommand } from 'citty';
import type { Store } from '../../storage/store.ts';
import {
  agreementBetween,
  INCONSISTENT_AS,
  ratings,
  singleResults,
  standingGroups,
} from '../../reports/results.ts';
import { arenaHardRatings, arenaHardStandings } from '../../reports/weighted.ts';
import { WEIGHTINGS } from '../../core/schemes/weighting.ts';
import { int, list, oneOf, ratingsTable, table, UsageError } from '../format.ts';
import * as figures from '../../core/format.ts';
import {
  dbArg,
  jsonArg,
  judgeTurnArgs,
  print,
  printTable,
  printJson,
  withJudge,
  withStore,
} from '../shared.ts';
import { priorArg, priorOption } from './analytics-shared.ts';
import { checkCategory, checkModels, checkJudges, twoJudges, twoJudgesArg } from '../validate.ts';
import { adaptiveNote, adaptiveRounds } from '../../reports/adaptive.ts';
import { DEFAULT_BASELINE } from '../../core/constants.ts';

const MODES = ['pairwise-all', 'pairwise-baseline', 'single'] as const;

export const standingsCommand = defineCommand({
  meta: {
    name: 'standings',
    description:
      "win/loss/tie/error per model, as FastChat's show_result (errors are excluded from the rates, but shown)",
  },
  args: {
    ...dbArg,
    ...jsonArg,
    ...judgeTurnArgs,
    mode: { type: 'string', description: MODES.join(' | '), default: 'pairwise-all' },
    baseline: {
      type: 'string',
      description: 'baseline model for pairwise-baseline',
      default: DEFAULT_BASELINE,
    },
    category: { type: 'string', description: 'only questions of this category' },
    models: { type: 'string', description: 'only these models (comma-separated)' },
    weight: {
      type: 'string',
      default: 'none',
      description:
        "none | arena-hard (Arena-Hard's weighting: each game counts on its own, a [[A>>B]]/[[B>>A]] verdict 3 times)",
    },
  },
  async run({ args }) {
    const mode = oneOf(args.mode, 'mode', MODES)!;
    const weight = oneOf(args.weight, 'weight', WEIGHTINGS)!;
    if (weight !== 'none' && mode === 'single')
      throw new UsageError('--weight arena-hard applies to pairwise modes only');
    const models = list(args.models);
    await withJudge(args, async (store, judge, t) => {
      await checkCategory(store, args.category);
      if (models) await checkModels(store, models, 'models', { judge });
      if (mode === 'pairwise-baseline') await checkModels(store, [args.baseline], 'baseline', { judge });
      const q = {
        judge,
        ...t,
        ...(args.category ? { category: args.category } : {}),
        ...(models ? { models } : {}),
      };
      if (mode === 'single') {
        const rows = await singleResults(store, q);
        if (!rows.length) return await noResults(store, args.db, judge, mode, !!args.json);
        if (args.json) return printJson(rows);
        return print(table(rows, ['model', 'turn1', 'turn2', 'score', 'n', 'error']));
      }
      const columns = 'model win loss tie error inconsistent winRate lossRate winRateAdjusted'.split(' ');
      if (weight === 'arena-hard') {
        const rows = await arenaHardStandings(store, { ...q, mode, baseline: args.baseline });
        if (!rows.length) return await noResults(store, args.db, judge, mode, !!args.json);
        if (args.json) return printJson(rows);
        print(
          'Arena-Hard weighting: win/loss/tie count battles (each game on its own; a strong verdict 3, a slight one or a tie 1); inconsistent = matches whose two orders disagree.\n',
        );
        return print(table(rows.map(shownStanding), columns));
      }
      // one table per group of models that played one another: tournaments that never met are not ranked together
      const groups = await standingGroups(store, { ...q, mode, baseline: args.baseline });
      const rows = groups.flatMap((g, k) =>
        groups.length > 1 ? g.rows.map((r) => ({ ...r, group: k + 1 })) : g.rows,
      );
      if (!rows.length) return await noResults(store, args.db, judge, mode, !!args.json);
      if (args.json) return printJson(rows);
      if (groups.length === 1) print(table(rows.map(shownStanding), columns));
      else
        groups.forEach((g, k) =>
          print(
            `${k ? '\n' : ''}group ${k + 1} of ${groups.length}: ${g.models.length} models that played one another, on ${g.questions} question(s) (never compared with the other groups)\n${table(g.rows.map(shownStanding), columns)}`,
          ),
        );
      const errors = rows.reduce((s, r) => s + r.error, 0);
      if (errors)
        print(
          `\n${errors} match side(s) had an unparsable or failed game; they are excluded from the rates as FastChat does.`,
        );
      const note = adaptiveNote(await adaptiveRounds(store, judge));
      if (note) print(`\n${note}`);
    });
  },
});

/** A standings row as people read it: rates spelled as the site's leaderboard spells them (core/format.ts). */
function shownStanding<R extends { winRate: number; lossRate: number; winRateAdjusted: number }>(r: R) {
  return {
    ...r,
    winRate: figures.rate(r.winRate),
    lossRate: figures.rate(r.lossRate),
    winRateAdjusted: figures.rate(r.winRateAdjusted),
  };
}

/** Nothing to show (the judge is one the database knows: judge-choice.ts): why the table is empty. */
export async function noResults(
  store: Store,
  db: string,
  judge: string,
  mode: string,
  json: boolean,
): Promise<void> {
  const known = (await store.games.judges()).map((j) => j.judge);
  if (json) return printJson([]);
  print(
    `no ${mode} results for judge "${judge}" in ${db} (judges there: ${known.join(', ') || 'none yet'}; see \`arena judges\`)`,
  );
}

export const agreementCommand = defineCommand({
  meta: {
    name: 'agreement',
    description:
      'agreement between two judges per turn, with ties (S1) and without (S2); "human" = expert votes',
  },
  args: { ...dbArg, ...jsonArg, ...twoJudgesArg },
  async run({ args }) {
    const [a, b] = twoJudges(args.judge);
    await withStore(args.db, { readonly: true }, async (store) => {
      await checkJudges(store, [a, b]);
      const rows = await agreementBetween(store, a, b);
      if (args.json) return printJson(rows);
      printTable(rows, (r) => ({ ...r, ratio: figures.pct(r.ratio) }));
    });
  },
});

export const ratingsCommand = defineCommand({
  meta: {
    name: 'ratings',
    description:
      'Bradley–Terry (MLE; ties half a win; base 10, scale 400, mean 1000) or online Elo (K=4); --style: controlled for answer style',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    ...judgeTurnArgs,
    method: { type: 'string', default: 'bt', description: 'bt | elo' },
    weight: {
      type: 'string',
      default: 'none',
      description:
        'none | arena-hard (battles as Arena-Hard builds them: each game on its own, a strong verdict 3 times)',
    },
    ...priorArg,
    inconsistent: {
      type: 'string',
      default: 'tie',
      description:
        'tie | drop: a match whose two orders disagree ("tie (inconsistent)") counts as a tie, or is left out as FastChat\'s compute_mle_elo does',
    },
    style: {
      type: 'string',
      description:
        "control for style: any of length, markdown (contextual Bradley–Terry, FastChat's style control)",
    },
    reg: { type: 'string', default: '0.5', description: "with --style: L2 strength (FastChat's 0.5)" },
    rounds: {
      type: 'string',
      default: '1000',
      description: 'with --style: bootstrap rounds (questions resampled)',
    },
    intervals: {
      type: 'string',
      default: 'bootstrap',
      description:
        'with --style: bootstrap (percentile, --rounds refits) | sandwich (question-clustered, one fit: for large data)',
    },
    level: { type: 'string', default: '0.95', description: 'with --style: interval level' },
    seed: { type: 'string', default: '1', description: 'with --style: seed of the resampling' },
    ties: {
      type: 'string',
      default: 'half',
      description:
        'half | rao-kupper: a tie is half a win, or an outcome of its own (Rao–Kupper, with its θ)',
    },
    position: {
      type: 'boolean',
      description:
        "fit each game on its own with a term for the answer shown first (the judge's position bias)",
    },
  },
  async run({ args }) {
    const method = oneOf(args.method, 'method', ['bt', 'elo'] as const)!;
    const weight = oneOf(args.weight, 'weight', WEIGHTINGS)!;
    const turn = int(args.turn, 'turn');
    const prior = priorOption(args.prior);
    const inconsistent = oneOf(args.inconsistent, 'inconsistent', INCONSISTENT_AS)!;
    const ties = oneOf(args.ties, 'ties', TIES)!;
    if (ties !== 'half' || args.position) {
      if (method !== 'bt' || weight !== 'none' || prior || inconsistent !== 'tie' || args.style !== undefined)
        throw new UsageError(
          '--ties rao-kupper and --position are Bradley–Terry fits of their own: drop --method elo, --weight, --prior, --inconsistent and --style',
        );
      return printRatingVariant(args, { ties, position: !!args.position, json: !!args.json });
    }
    if (inconsistent !== 'tie' && (args.style !== undefined || weight !== 'none'))
      throw new UsageError(
        '--inconsistent drop applies to plain ratings: drop --style and --weight, or --inconsistent',
      );
    if (args.style !== undefined)
      return printStyleRatings({
        ...args,
        style: args.style,
        method,
        weight,
        prior,
        turn,
        json: !!args.json,
      });
    if (method === 'elo' && prior)
      throw new UsageError('--prior applies to Bradley–Terry ratings (--method bt), not to online Elo');
    await withJudge(args, async (store, judge, t) => {
      if (weight === 'arena-hard' && prior)
        throw new UsageError(
          '--prior applies to unweighted ratings only (drop --weight arena-hard or --prior)',
        );
      const rows: { model: string; rating: number | null; note?: string; group?: number }[] =
        weight === 'arena-hard'
          ? await arenaHardRatings(store, judge, method, t)
          : await ratings(store, judge, method, { prior, inconsistent, ...t });
      if (args.json) return printJson(rows);
      print(ratingsTable(rows));
    });
  },
});
