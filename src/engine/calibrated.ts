// The score-based, evidence-first pairwise scheme with MEC + BPC, played against a judge and stored as
// games (one game per order and sample), and the human review queue built on its entropy.
import { pick } from '../core/pick.ts';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { label as voteLabel } from '../core/stats/agreement.ts';
import {
  calibrate,
  conflictByGap,
  DEFAULT_SAMPLES,
  FAIR_PAIR,
  FAIR_PAIR_MULTI_TURN,
  FAIR_PROMPT_SET,
  SCORE_PARSER,
  scoreVerdict,
  type CalibratedMatch,
  type GapRow,
  type ScoreSample,
} from '../core/stats/calibration.ts';
import {
  DEFAULT_BETA,
  compareLabels,
  parseReviewLabels,
  selectForReview,
  type LabelComparison,
} from '../core/stats/review.ts';
import { pairwiseStandings } from '../core/standings.ts';
import {
  ArenaError,
  type Game,
  type JudgeSettings,
  type Standing,
  type Verdict,
  type Vote,
} from '../core/types.ts';
import type { JudgeProvider } from '../judges/judge.ts';
import type { Store } from '../storage/store.ts';
import { gameId } from '../core/plan.ts';
import { newRun, playGames, type PlayOptions, type PlayRun } from './play/index.ts';
import { judgeSettings, planRun } from './run.ts';
import { FAIR_SUFFIX, HUMAN, REVIEW_JUDGE } from '../core/constants.ts';

function fairJudgeName(judgeId: string): string {
  return judgeId.endsWith(FAIR_SUFFIX) ? judgeId : `${judgeId}${FAIR_SUFFIX}`;
}

export interface CalibratedRunOptions extends Pick<
  PlayOptions,
  'concurrency' | 'signal' | 'onProgress' | 'isAlive'
> {
  store: Store;
  /** the judge, already wrapped with retries and timeouts */
  judge: JudgeProvider;
  models: string[];
  questionIds?: number[];
  turns?: number[];
  /** MEC: samples per order (default 3) */
  samples?: number;
  /** sampling temperature (default 1, as the paper) */
  temperature?: number;
  maxTokens?: number;
  referenceSource?: string;
  /** this process, e.g. "host:pid" (stored on the run record while it runs) */
  owner?: string;
}

export type CalibratedRunSummary = PlayRun;

/**
 * Play every (match, order, sample) game not stored yet: a sample's index is part of its content id, so raising
 * k later plays only the new samples. Unparsable replies are stored (verdict `error`) and excluded later.
 */
export async function runCalibrated(o: CalibratedRunOptions): Promise<CalibratedRunSummary> {
  const k = o.samples ?? DEFAULT_SAMPLES;
  if (!Number.isInteger(k) || k < 1)
    throw new ArenaError(`[calibrate] samples must be a positive integer, got ${k}`);
  const judgeName = fairJudgeName(o.judge.id);
  const have = new Set((await o.store.catalog.prompts()).map((p) => p.name));
  const missing = [FAIR_PAIR, FAIR_PAIR_MULTI_TURN].filter((p) => !have.has(p.name));
  if (missing.length) await o.store.importBundle({ prompts: missing });
  // what the judge sends (a reasoning model: max_completion_tokens, its effort) is the samples' identity
  const base: JudgeSettings = judgeSettings(o.judge, {
    temperature: o.temperature ?? 1,
    maxTokens: o.maxTokens ?? 2048,
  });
  const { games: planned } = await planRun({
    store: o.store,
    judge: { id: judgeName, complete: o.judge.complete.bind(o.judge) },
    mode: 'pairwise-all',
    models: o.models,
    ...pick(o, ['questionIds', 'turns', 'referenceSource']),
    promptSet: FAIR_PROMPT_SET,
    settings: base,
  });
  const all = planned.flatMap(({ spec }) =>
    Array.from({ length: k }, (_, sample) => ({
      spec,
      settings: { ...base, sample },
      id: gameId(judgeName, { ...base, sample }, spec),
    })),
  );
  const stored = await o.store.games.existingIds(all.map((g) => g.id));
  const todo = all.filter((g) => !stored.has(g.id));
  const run = newRun({
    judge: judgeName,
    mode: 'pairwise-all',
    config: {
      scheme: 'fair-pair-v1 (MEC+BPC)',
      models: o.models,
      questionIds: o.questionIds,
      turns: o.turns,
      samples: k,
      settings: base,
    },
    planned: all.length,
    toPlay: todo.length,
    ...(o.owner ? { owner: o.owner } : {}),
  });
  return playGames(todo, {
    store: o.store,
    run,
    settings: base,
    call: ({ spec }, c) =>
      o.judge.complete({
        system: spec.systemPrompt,
        user: spec.userPrompt,
        temperature: c.settings.temperature ?? 1,
        maxTokens: c.settings.maxTokens,
        settings: c.settings,
        onRetry: c.onRetry,
        ...(c.signal ? { signal: c.signal } : {}),
      }),
    read: (spec, text) => ({ verdict: scoreVerdict(text, spec.order), parser: SCORE_PARSER }),
    ...pick(o, ['concurrency', 'signal', 'onProgress', 'isAlive']),
  });
}

export interface CalibratedRow extends CalibratedMatch {
  questionId: number;
  category: string;
  turn: number;
  model1: string;
  model2: string;
  /** mean SoftEnt-Cali (nats) of the match's samples, where the judge computed it (lower: more reliable) */
  softEntCali: number | null;
}

/** Every match of the calibrated scheme, MEC + BPC applied over the first `samples` samples (default: all stored). */
async function calibratedMatches(
  store: Store,
  judge: string,
  o: { samples?: number } = {},
): Promise<CalibratedRow[]> {
  const name = fairJudgeName(judge);
  // by prompt, not by parser version: the scores are re-read from the stored replies every time
  const schemes = new Set([FAIR_PAIR.name, FAIR_PAIR_MULTI_TURN.name]);
  const games = (await store.games.list({ judge: name, kind: 'pairwise' })).filter((g) =>
    schemes.has(g.promptName),
  );
  const byMatch = new Map<string, { g: Game; samples: ScoreSample[]; softent: number[] }>();
  for (const g of games) {
    const sample = Number(g.judgeSettings.sample ?? 0);
    if (o.samples !== undefined && sample >= o.samples) continue;
    const key = `${g.match.questionId}\u0000${g.match.turn}\u0000${g.match.model1}\u0000${g.match.model2}`;
    let e = byMatch.get(key);
    if (!e) byMatch.set(key, (e = { g, samples: [], softent: [] }));
    e.samples.push({ order: g.order, sample, reply: g.reply });
    if (g.reliability != null) e.softent.push(g.reliability);
  }
  return [...byMatch.values()].map(({ g, samples, softent }) => ({
    questionId: g.match.questionId,
    category: g.match.category,
    turn: g.match.turn,
    model1: g.match.model1,
    model2: g.match.model2!,
    softEntCali: softent.length ? softent.reduce((a, b) => a + b, 0) / softent.length : null,
    ...calibrate(samples),
  }));
}

export interface CalibratedReport {
  judge: string;
  matches: number;
  errors: number;
  unparsableSamples: number;
  validSamples: number;
  /** standings from the calibrated verdicts, and from the first sample of each order combined as FastChat does */
  calibrated: Standing[];
  firstSample: Standing[];
  /** conflicts of the first samples (the two orders disagree) by calibrated score gap */
  byGap: GapRow[];
  errorReasons: string[];
}

export async function calibratedReport(
  store: Store,
  judge: string,
  o: { samples?: number } = {},
): Promise<CalibratedReport> {
  const rows = await calibratedMatches(store, judge, o);
  const out = (outcome: (r: CalibratedRow) => Verdict | 'inconsistent') =>
    pairwiseStandings(
      rows.map((r) => ({
        questionId: r.questionId,
        turn: r.turn,
        model1: r.model1,
        model2: r.model2,
        outcome: outcome(r),
      })),
    );
  return {
    judge: fairJudgeName(judge),
    matches: rows.length,
    errors: rows.filter((r) => r.verdict === 'error').length,
    unparsableSamples: rows.reduce((s, r) => s + r.unparsable, 0),
    validSamples: rows.reduce((s, r) => s + r.validAB + r.validBA, 0),
    calibrated: out((r) => r.verdict),
    firstSample: out((r) =>
      r.single.ab === 'error' || r.single.ba === 'error'
        ? 'error'
        : r.single.ab === r.single.ba
          ? r.single.ab
          : 'inconsistent',
    ),
    byGap: conflictByGap(rows),
    errorReasons: rows
      .filter((r) => r.error)
      .slice(0, 10)
      .map((r) => `question ${r.questionId} turn ${r.turn} ${r.model1} vs ${r.model2}: ${r.error}`),
  };
}

/** The review queue: the top β share of matches by balanced-position diversity entropy. */
export async function reviewQueue(
  store: Store,
  judge: string,
  o: { beta?: number; samples?: number } = {},
): Promise<CalibratedRow[]> {
  return selectForReview(await calibratedMatches(store, judge, o), o.beta ?? DEFAULT_BETA);
}

/** The queue as JSONL for annotators: the question, both answers, the judge's view, and `label: null` to fill in. */
export async function exportReview(
  store: Store,
  judge: string,
  o: { beta?: number; samples?: number } = {},
): Promise<string> {
  const queue = await reviewQueue(store, judge, o);
  const questions = new Map((await store.catalog.questions()).map((q) => [q.id, q]));
  const models = [...new Set(queue.flatMap((r) => [r.model1, r.model2]))];
  const answers = new Map(
    (await store.catalog.answers(models)).map((a) => [`${a.model}\u0000${a.questionId}`, a.turns]),
  );
  return queue
    .map((r) =>
      JSON.stringify({
        questionId: r.questionId,
        turn: r.turn,
        category: r.category,
        model1: r.model1,
        model2: r.model2,
        entropy: Number(r.entropy.toFixed(4)),
        ...(r.softEntCali !== null ? { softEntCali: Number(r.softEntCali.toFixed(4)) } : {}),
        judgeVerdict: r.verdict,
        score1: r.score1,
        score2: r.score2,
        question: questions.get(r.questionId)?.turns.slice(0, r.turn) ?? null,
        answer1: answers.get(`${r.model1}\u0000${r.questionId}`)?.slice(0, r.turn) ?? null,
        answer2: answers.get(`${r.model2}\u0000${r.questionId}`)?.slice(0, r.turn) ?? null,
        label: null,
      }),
    )
    .join('\n')
    .concat(queue.length ? '\n' : '');
}

/** Import a labelled review file as votes of the `review` judge (importing the same file again replaces its labels). */
export async function importReview(
  store: Store,
  file: string,
): Promise<{ labels: number; unlabelled: number }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ArenaError(
      `${file}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      { file },
      { cause: e },
    );
  }
  const { labels, unlabelled } = parseReviewLabels(file, text);
  const items = labels.map((l) => ({
    judge: REVIEW_JUDGE,
    voter: l.voter,
    questionId: l.questionId,
    turn: l.turn,
    model1: l.model1,
    model2: l.model2,
    winner: l.label,
    line: l.line,
  }));
  await store.importBundle({ votes: [{ source: `review:${basename(file)}`, items }] });
  return { labels: labels.length, unlabelled };
}

export interface ReviewReport {
  judge: string;
  /** the judge whose votes are the truth (default: human) */
  truth: string;
  beta: number;
  matches: number;
  reviewed: number;
  rows: ({ variant: string } & LabelComparison)[];
}

/**
 * Accuracy and kappa against the truth's votes: the first sample alone (AB order), MEC + BPC, and
 * MEC + BPC with the reviewed matches' verdicts replaced by the review labels.
 */
export async function reviewReport(
  store: Store,
  judge: string,
  o: { truth?: string; samples?: number } = {},
): Promise<ReviewReport> {
  const truth = o.truth ?? HUMAN;
  const rows = await calibratedMatches(store, judge, o);
  const key = (q: number, t: number, a: string, b: string) =>
    `${q}\u0000${t}\u0000${a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`}`;
  const truthVotes = new Map<string, Vote[]>();
  for (const v of await store.votes.list(truth)) {
    const k = key(v.questionId, v.turn, v.model1, v.model2);
    truthVotes.set(k, [...(truthVotes.get(k) ?? []), v]);
  }
  const reviewed = new Map<string, Vote>();
  for (const v of await store.votes.list(REVIEW_JUDGE))
    reviewed.set(key(v.questionId, v.turn, v.model1, v.model2), v);
  // labels on the sorted pair, as agreement does
  const asLabel = (r: CalibratedRow, v: Verdict) =>
    v === 'error'
      ? 'error'
      : voteLabel({
          judge: '',
          voter: '',
          questionId: r.questionId,
          turn: r.turn,
          model1: r.model1,
          model2: r.model2,
          winner: v,
        });
  const variants: Record<string, [string, string][]> = {
    'first sample (AB order only)': [],
    'MEC + BPC': [],
    'MEC + BPC + review labels': [],
  };
  let nReviewed = 0;
  for (const r of rows) {
    const k = key(r.questionId, r.turn, r.model1, r.model2);
    const rv = reviewed.get(k);
    if (rv) nReviewed++;
    for (const t of truthVotes.get(k) ?? []) {
      const y = voteLabel(t);
      variants['first sample (AB order only)']!.push([asLabel(r, r.single.ab), y]);
      variants['MEC + BPC']!.push([asLabel(r, r.verdict), y]);
      variants['MEC + BPC + review labels']!.push([rv ? voteLabel(rv) : asLabel(r, r.verdict), y]);
    }
  }
  return {
    judge: fairJudgeName(judge),
    truth,
    beta: rows.length ? nReviewed / rows.length : 0,
    matches: rows.length,
    reviewed: nReviewed,
    rows: Object.entries(variants).map(([variant, pairs]) => ({ variant, ...compareLabels(pairs) })),
  };
}
