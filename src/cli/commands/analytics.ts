import { defineCommand } from 'citty';
import type { BiasDimension } from '../../core/stats/bias.ts';
import { MIN_QUESTIONS } from '../../core/stats/rating-rows.ts';
import { bootArgs, bootOptions } from '../boot-args.ts';
import { PRELIMINARY_MAX_WIDTH, PRELIMINARY_MIN_BATTLES } from '../../core/stats/rank-intervals.ts';
import type { GapRow } from '../../core/stats/calibration.ts';
import { MIN_KAPPA_QUESTIONS } from '../../core/stats/kappa.ts';
import { biasReport, intervalReport, kappaReport, lengthReport } from '../../reports/analytics.ts';
import { int, list, num, oneOf, table, UsageError } from '../format.ts';
import * as figures from '../../core/format.ts';
import { dbArg, jsonArg, openStore, print, printJson, withStore } from '../shared.ts';
import { checkJudge, checkJudgeTurn, checkJudges, twoJudges, twoJudgesArg } from '../validate.ts';
import { judgeCallArgs, judgeSetupOf } from '../judge-args.ts';
import { processLiveness } from '../liveness.ts';
import type { JudgeCallError } from '../../judges/judge.ts';
import { setMaxListeners } from 'node:events';
import { writeFileSync } from 'node:fs';
import { refuseDatabaseOutput, writeOutputFile } from '../out-file.ts';
import { HUMAN } from '../../core/constants.ts';

// one spelling per kind of figure, shared with the site (core/format.ts)
const pct = figures.pct;
const fix = (x: number, d = 1) => (Number.isNaN(x) ? '' : Number(x.toFixed(d)));

const gapTable = (rows: GapRow[]) =>
  table(
    rows.map((g) => ({
      gap: `[${g.from}, ${g.to === Infinity ? '∞' : g.to})`,
      matches: g.matches,
      conflicts: g.conflicts,
      conflict: pct(g.conflict),
    })),
  );

export const priorArg = {
  prior: {
    type: 'string',
    default: '0',
    description:
      'Bradley–Terry prior: tie pseudo-games added to every pair of models that met (0: none; 1 keeps a 10–0 record finite)',
  },
} as const;

export function priorOption(v: string | undefined): number {
  const prior = num(v, 'prior') ?? 0;
  if (!(prior >= 0) || !Number.isFinite(prior))
    throw new UsageError(`--prior must be a number of pseudo-games >= 0, got ${v}`);
  return prior;
}

export const biasCommand = defineCommand({
  meta: {
    name: 'bias',
    description:
      "position bias of a judge: model 1's win rate when shown first and second, and the conflict rate (the two orders disagree)",
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: { type: 'string', required: true, description: 'judge name (see `arena judges`)' },
    by: {
      type: 'string',
      default: 'pair',
      description: 'group rows by any of pair, category, turn (comma-separated; "" pools everything)',
    },
  },
  async run({ args }) {
    const by = (list(args.by) ?? []).map((d) =>
      oneOf(d, 'by', ['pair', 'category', 'turn'] as const)!,
    ) as BiasDimension[];
    await withStore(
      args.db,
      async (store) => {
        await checkJudge(store, args.judge);
        const r = await biasReport(store, args.judge, by);
        if (args.json) return printJson(r);
        if (!r.games.length && !r.recorded.length)
          return print(
            `no pairwise games or recorded verdicts for judge "${args.judge}" (see \`arena judges\`)`,
          );
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
                'model 1 wins shown first': `${pct(g.winFirst)}${g.winFirstLo !== null ? ` [${pct(g.winFirstLo)}, ${pct(g.winFirstHi)}]` : ''}`,
                'shown second': `${pct(g.winSecond)}${g.winSecondLo !== null ? ` [${pct(g.winSecondLo)}, ${pct(g.winSecondHi)}]` : ''}`,
                'picks position A': pct(g.positionA),
                matches: g.matches,
                conflict: pct(g.conflict),
                'favours first': g.favoursFirst,
                'favours second': g.favoursSecond,
                'one tie': g.withTie,
                'sign test p':
                  g.signTestP === null
                    ? ''
                    : g.signTestP < 1e-4
                      ? g.signTestP.toExponential(1)
                      : fix(g.signTestP, 4),
              })),
            ),
          );
          print(
            `\nwin rates: model 1's wins / its games in that order; ties are in the denominator (a tie is not a win). [lo, hi]: ${Math.round((r.games[0]?.level ?? 0.95) * 100)}% percentile intervals, questions resampled (1000 rounds, seed 1).` +
              `\nconflicts: one game per order (the lowest MEC sample index, the latest among equal ones). sign test p: exact two-sided binomial test of "favours first" against "favours second" (one-tie conflicts left out).`,
          );
        }
        if (r.byGap)
          print(
            `\nconflict rate of the first samples by calibrated score gap (score-based games):\n${gapTable(r.byGap)}`,
          );
        if (r.recorded.length) {
          print(
            `${r.games.length ? '\n' : ''}conflict rate of ${args.judge}'s recorded verdicts (combined outcomes only: no per-order games, so no per-order win rates):`,
          );
          print(
            table(
              r.recorded.map((c) => ({
                pair: c.pair,
                category: c.category,
                turn: c.turn,
                matches: c.matches,
                inconsistent: c.inconsistent,
                conflict: pct(c.conflict),
                ties: c.ties,
              })),
            ),
          );
        }
      },
      { readonly: true },
    );
  },
});

export const kappaCommand = defineCommand({
  meta: {
    name: 'kappa',
    description:
      "agreement (S1 with ties, S2 without) with Cohen's kappa and question-level bootstrap intervals, per turn (and category)",
  },
  args: {
    ...dbArg,
    ...jsonArg,
    ...twoJudgesArg,
    category: { type: 'boolean', description: 'also one row per category' },
    ...bootArgs,
  },
  async run({ args }) {
    const [a, b] = twoJudges(args.judge);
    const o = bootOptions(args);
    await withStore(
      args.db,
      async (store) => {
        await checkJudges(store, [a, b]);
        const rows = await kappaReport(store, a, b, {
          ...o,
          byCategory: Boolean(args.category),
        });
        if (args.json) return printJson(rows);
        print(
          table(
            rows.map((r) => ({
              turn: r.turn,
              category: r.category,
              setup: r.setup,
              questions: r.questions,
              total: r.total,
              agree: r.agree,
              ratio: pct(r.ratio),
              kappa: figures.kappa(r.kappa),
              lo: figures.kappa(r.lo),
              hi: figures.kappa(r.hi),
              note: r.note ?? '',
            })),
          ),
        );
        const nan = rows.reduce((s, r) => s + r.nanRounds, 0);
        print(
          `\nkappa intervals: ${Math.round(o.level * 100)}% bootstrap percentile intervals, questions resampled, ${o.rounds} rounds, seed ${o.seed}; none for a row on fewer than ${MIN_KAPPA_QUESTIONS} questions${nan ? `; ${nan} rounds in all had kappa undefined (chance agreement 1) and were left out` : ''}`,
        );
      },
      { readonly: true },
    );
  },
});

export const intervalsCommand = defineCommand({
  meta: {
    name: 'intervals',
    description:
      'Bradley–Terry ratings and win rates with bootstrap intervals (questions resampled) and a rank that respects them',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: { type: 'string', required: true, description: 'judge name (human = expert votes)' },
    unit: {
      type: 'string',
      default: 'question',
      description:
        'question (all games of a question move together) | game (single games; too narrow when games of a question are correlated)',
    },
    turn: { type: 'string', description: '1 or 2 (default: both)' },
    ...priorArg,
    method: {
      type: 'string',
      default: 'bootstrap',
      description: 'bootstrap (refit per round) | sandwich (robust CLT: one fit, clusters = --unit)',
    },
    'min-battles': {
      type: 'string',
      default: String(PRELIMINARY_MIN_BATTLES),
      description: 'a model with fewer decided battles is marked preliminary',
    },
    'max-width': {
      type: 'string',
      default: String(PRELIMINARY_MAX_WIDTH),
      description: 'a model whose interval is wider (rating points) is marked preliminary',
    },
    ...bootArgs,
  },
  async run({ args }) {
    const unit = oneOf(args.unit, 'unit', ['question', 'game'] as const)!;
    const method = oneOf(args.method, 'method', ['bootstrap', 'sandwich'] as const)!;
    const turn = int(args.turn, 'turn');
    const o = bootOptions(args);
    const prior = priorOption(args.prior);
    const minBattles = num(args['min-battles'], 'min-battles')!;
    const maxWidth = num(args['max-width'], 'max-width')!;
    if (minBattles < 0 || maxWidth <= 0)
      throw new UsageError('--min-battles must be at least 0 and --max-width above 0');
    await withStore(
      args.db,
      async (store) => {
        await checkJudgeTurn(store, args.judge, turn);
        const r = await intervalReport(store, args.judge, {
          ...o,
          unit,
          method,
          prior,
          minBattles,
          maxWidth,
          ...(turn !== undefined ? { turn } : {}),
        });
        if (args.json) return printJson(r);
        if (!r.ratings.rows.length)
          return print(`no pairwise results for judge "${args.judge}" (see \`arena judges\`)`);
        const lvl = `${Math.round(o.level * 100)}%`;
        const wr = new Map(r.winRates.map((w) => [w.model, w]));
        print(
          table(
            r.ratings.rows.map((x) => {
              const w = wr.get(x.model)!;
              const group = (x as { group?: number }).group;
              return {
                ...(group ? { group } : {}),
                'rank (UB)': x.rank,
                'rank range':
                  x.rankBest === x.rankWorst ? String(x.rankBest) : `${x.rankBest}–${x.rankWorst}`,
                model: `${x.model}${x.preliminary ? ' *' : ''}`,
                rating: figures.rating(x.rating),
                [`${lvl} lo`]: figures.rating(x.lo),
                [`${lvl} hi`]: figures.rating(x.hi),
                matches: w.matches,
                'win rate': pct(w.winRate),
                'win lo': w.lo === null ? '–' : pct(w.lo),
                'win hi': w.hi === null ? '–' : pct(w.hi),
                note: x.note ?? '',
              };
            }),
          ),
        );
        if (r.ratings.separatedRounds)
          print(
            `\n${r.ratings.separatedRounds} of ${r.ratings.rounds} bootstrap rounds were separated (some model won or lost every game it played in them); in those rounds such a model's rating is infinite, and the others are centred without it`,
          );
        if (r.ratings.disconnected)
          print(
            `\nthese groups of models were never compared with one another, so each group is fitted and ranked on its own (mean 1000 in each; ratings of different groups are not comparable): ${r.ratings.disconnected.map((g, k) => `${k + 1} {${g.join(', ')}}`).join(' ')}`,
          );
        const how =
          method === 'sandwich'
            ? `${lvl} sandwich (robust CLT) intervals, ${unit === 'question' ? 'clustered by question' : 'one cluster per game'}`
            : `${lvl} bootstrap percentile intervals, ${unit === 'question' ? 'questions resampled (both turns and both orders move together)' : 'single games resampled'}, ${o.rounds} rounds, seed ${o.seed}`;
        print(
          `\n${how}; rank (UB) = 1 + models whose interval lies wholly above; rank range = best and worst rank consistent with simultaneous ${lvl} intervals of all rating differences; no interval for a model seen on fewer than ${r.ratings.minQuestions ?? MIN_QUESTIONS} questions${prior ? `; prior: ${prior} tie pseudo-game(s) per pair that met` : ''}`,
        );
        if (r.ratings.rows.some((x) => x.preliminary))
          print(
            `* preliminary: fewer than ${minBattles} decided battles, an interval wider than ${maxWidth} rating points, or no interval`,
          );
      },
      { readonly: true },
    );
  },
});

export const lengthCommand = defineCommand({
  meta: {
    name: 'length',
    description:
      'length awareness: share of decisive verdicts that went to the longer answer; length-controlled win rates beside the raw ones',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: { type: 'string', required: true, description: 'judge name (human = expert votes)' },
    turn: { type: 'string', description: '1 or 2 (default: both)' },
    ...bootArgs,
  },
  async run({ args }) {
    const turn = int(args.turn, 'turn');
    const o = bootOptions(args);
    await withStore(
      args.db,
      async (store) => {
        await checkJudgeTurn(store, args.judge, turn);
        const r = await lengthReport(store, args.judge, { ...o, ...(turn !== undefined ? { turn } : {}) });
        if (args.json) return printJson(r);
        const l = r.longer;
        const lvl = `${Math.round(o.level * 100)}%`;
        print(
          `${args.judge}: ${l.toLonger} of ${l.decisive} decisive verdicts (${pct(l.share)}) went to the longer answer (length = ${r.measure})${l.equalLength ? ` (${l.equalLength} between equal lengths left out)` : ''}${r.missingAnswers ? `; ${r.missingAnswers} matches left out: answers not in the database` : ''}`,
        );
        const e = r.lengthEffect;
        if (e)
          print(
            `length effect: ${fix(e.coefficient, 3)} (SE ${fix(e.se, 3)}; ${lvl} ${fix(e.lo, 3)} to ${fix(e.hi, 3)}) log-odds per unit of tanh(Δ / ${fix(e.sigma, 0)} chars); at equal lengths ${fix(e.perThousandChars, 3)} log-odds per 1,000 characters\n`,
          );
        print(
          table(
            r.models.map((m) => ({
              model: m.model,
              matches: m.n,
              'win rate': pct(m.winRate),
              'length-controlled': pct(m.lcWinRate),
              [`${lvl} lo`]: m.lo === null ? '–' : pct(m.lo),
              [`${lvl} hi`]: m.hi === null ? '–' : pct(m.hi),
              'mean length diff (chars)': fix(m.meanLengthDiff, 0),
            })),
          ),
        );
        print(
          `\nlength-controlled: one joint model of all matches (model strengths + β·tanh(length difference / σ) + a question-difficulty term, L2-penalised, after AlpacaEval 2), predicted at equal lengths against the same opponents on the same questions (ties count half). Intervals: ${lvl} percentile, questions resampled, ${o.rounds} rounds, seed ${o.seed}${r.failedRounds ? `; ${r.failedRounds} rounds failed to fit and were left out` : ''}. SE: from the observed information.`,
        );
      },
      { readonly: true },
    );
  },
});

const calibrateArgs = {
  samples: { type: 'string', default: '3', description: 'MEC: samples per order (k)' },
} as const;

export const calibrateCommand = defineCommand({
  meta: {
    name: 'calibrate',
    description:
      'score-based evidence-first pairwise judging with MEC (k samples at temperature 1) and BPC (both orders); plays what is not stored, then reports',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: {
      type: 'string',
      required: true,
      description: 'openai/<model> or mock/<behaviour>; games are stored as <judge>+fair',
    },
    models: { type: 'string', required: true, description: 'comma-separated models (every pair is judged)' },
    questions: { type: 'string', description: 'comma-separated question ids (default: all)' },
    turn: {
      type: 'string',
      default: '1,2',
      description: 'turns to judge, comma-separated (--turns: the old spelling)',
    },
    ...calibrateArgs,
    temperature: { type: 'string', default: '1', description: 'sampling temperature of the MEC samples' },
    'max-tokens': { type: 'string', default: '2048', description: 'most tokens a judge reply may have' },
    concurrency: { type: 'string', default: '8', description: 'judge calls in flight' },
    ...judgeCallArgs,
  },
  async run({ args }) {
    const { runCalibrated, calibratedReport } = await import('../../engine/calibrated.ts');
    const { openJudge } = await import('../../judges/registry.ts');
    const { authStopError } = await import('../../judges/auth-stop.ts');
    const { exitStatus } = await import('../shared.ts');
    const models = list(args.models);
    if (!models || models.length < 2) throw new UsageError('--models needs at least two models');
    const samples = int(args.samples, 'samples')!;
    if (samples < 1) throw new UsageError(`--samples must be at least 1, got ${samples}`);
    const setup = judgeSetupOf(args.judge, args);
    // the key is checked before the database is opened; the first 401/403 stops the whole run
    const ctl = new AbortController();
    setMaxListeners(0, ctl.signal);
    let refused: JudgeCallError | undefined;
    const judge = await openJudge(setup, process.env, {
      log: (m) => process.stderr.write(`${m}\n`),
      onAuthFailure: (e) => {
        refused = e;
        setImmediate(() => ctl.abort(e));
      },
    });
    const store = openStore(args.db, { mustExist: true });
    try {
      const questionIds = list(args.questions)?.map((q) => int(q, 'questions')!);
      const run = await runCalibrated({
        store,
        judge,
        models,
        ...(questionIds ? { questionIds } : {}),
        turns: list(args.turn)!.map((t) => int(t, 'turn')!),
        samples,
        temperature: num(args.temperature, 'temperature')!,
        maxTokens: int(args['max-tokens'], 'max-tokens')!,
        concurrency: int(args.concurrency, 'concurrency')!,
        signal: ctl.signal,
        ...processLiveness(),
      });
      if (refused) {
        const { errors: _e, ...record } = run;
        await store.saveRun({ ...record, status: 'failed' });
        throw authStopError(refused);
      }
      const report = await calibratedReport(store, judge.id, { samples });
      if (args.json) return printJson({ run, report });
      print(
        `run ${run.id}: ${run.played} played, ${run.failed} failed, ${run.planned - run.toPlay} already stored (${run.planned} games = matches x 2 orders x ${samples} samples)`,
      );
      if (run.failed) {
        for (const e of run.errors.slice(0, 5)) process.stderr.write(`  failed: ${e}\n`);
        exitStatus.code = 2;
      }
      printCalibrated(report);
    } finally {
      await judge.close?.();
      await store.close();
    }
  },
});

function printCalibrated(
  r: Awaited<ReturnType<typeof import('../../engine/calibrated.ts').calibratedReport>>,
) {
  print(
    `\n${r.judge}: ${r.matches} matches, ${r.validSamples} valid samples, ${r.unparsableSamples} unparsable (excluded), ${r.errors} matches with no valid sample in an order (errors)`,
  );
  for (const e of r.errorReasons) print(`  error: ${e}`);
  const first = new Map(r.firstSample.map((s) => [s.model, s]));
  print(
    `\n${table(
      r.calibrated.map((s) => ({
        model: s.model,
        win: s.win,
        loss: s.loss,
        tie: s.tie,
        error: s.error,
        'win rate (MEC+BPC)': pct(s.winRateAdjusted),
        'first sample only': pct(first.get(s.model)?.winRateAdjusted),
        'its conflicts': first.get(s.model)?.inconsistent ?? 0,
      })),
    )}`,
  );
  print(`\nconflict rate of the first samples by calibrated score gap:\n${gapTable(r.byGap)}`);
}

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
  const beta = num(args.beta, 'beta')!;
  if (!(beta >= 0 && beta <= 1)) throw new UsageError(`--beta must lie in [0, 1], got ${beta}`);
  return { beta, samples: int(args.samples, 'samples')! };
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
        await withStore(
          args.db,
          async (store) => {
            const q = await reviewQueue(store, args.judge, reviewOptions(args));
            if (args.json) return printJson(q);
            if (!q.length)
              return print(`no calibrated matches for judge "${args.judge}" (run \`arena calibrate\` first)`);
            print(
              table(
                q.map((r) => ({
                  question: r.questionId,
                  turn: r.turn,
                  category: r.category,
                  model1: r.model1,
                  model2: r.model2,
                  entropy: fix(r.entropy, 3),
                  verdict: r.verdict,
                  score1: r.score1 === null ? '' : fix(r.score1, 2),
                  score2: r.score2 === null ? '' : fix(r.score2, 2),
                  unparsable: r.unparsable,
                })),
              ),
            );
          },
          { readonly: true },
        );
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
        await withStore(
          args.db,
          async (store) => {
            const text = await exportReview(store, args.judge, reviewOptions(args));
            if (!args.out) return process.stdout.write(text);
            await writeOutputFile(args.out, args.db, (tmp) => writeFileSync(tmp, text));
            print(`wrote ${text ? text.trimEnd().split('\n').length : 0} matches to ${args.out}`);
          },
          { readonly: true },
        );
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
        await withStore(
          args.db,
          async (store) => {
            const r = await importReview(store, args.file);
            print(
              `imported ${r.labels} labels from ${args.file}${r.unlabelled ? ` (${r.unlabelled} lines still without a label)` : ''}`,
            );
          },
          { mustExist: true },
        );
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
        await withStore(
          args.db,
          async (store) => {
            const r = await reviewReport(store, args.judge, {
              truth: args.truth,
              samples: int(args.samples, 'samples')!,
            });
            if (args.json) return printJson(r);
            print(
              `${r.judge} against "${r.truth}" votes: ${r.matches} matches, ${r.reviewed} reviewed (${pct(r.beta)})\n`,
            );
            print(
              table(
                r.rows.map((x) => ({
                  variant: x.variant,
                  compared: x.n,
                  accuracy: pct(x.accuracy),
                  kappa: figures.kappa(x.kappa),
                })),
              ),
            );
          },
          { readonly: true },
        );
      },
    }),
  },
});
