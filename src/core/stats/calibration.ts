// The score-based, evidence-first pairwise scheme of "Large Language Models are not Fair Evaluators"
// (Wang et al.) and its calibrations: MEC (k samples averaged) and BPC (both orders averaged), plus the
// balanced-position diversity entropy (BPDE) that ranks matches for human review.
import type { PromptSet } from '../prompts.ts';
import type { Order, PromptScheme, Verdict } from '../types.ts';
import { entropyBits } from './confidence.ts';

const FAIR_SYSTEM = 'You are a helpful and precise assistant for checking the quality of the answer.';

const FAIR_INSTRUCTIONS = `[System]
We would like to request your feedback on the performance of two AI assistants in response to the user question displayed above.
Please rate the helpfulness, relevance, accuracy, level of details of their responses. Each assistant receives an overall score on a scale of 1 to 10, where a higher score indicates better overall performance.
Please first provide a comprehensive explanation of your evaluation, avoiding any potential bias and ensuring that the order in which the responses were presented does not affect your judgment. Then, output two lines indicating the scores for Assistant 1 and 2, respectively.

Output with the following format:
Evaluation evidence: <your evaluation explanation here>
Score of the Assistant 1: <score>
Score of the Assistant 2: <score>`;

/** The paper's template, turn 1 (Assistant 1 is the answer shown first). */
export const FAIR_PAIR: PromptScheme = {
  name: 'fair-pair-v1',
  type: 'pairwise',
  systemPrompt: FAIR_SYSTEM,
  promptTemplate: `[Question]\n{question}\n\n[The Start of Assistant 1's Answer]\n{answer_a}\n[The End of Assistant 1's Answer]\n\n[The Start of Assistant 2's Answer]\n{answer_b}\n[The End of Assistant 2's Answer]\n\n${FAIR_INSTRUCTIONS}`,
  outputFormat: 'Score of the Assistant 1: <score>\nScore of the Assistant 2: <score>',
  category: 'general',
  description:
    'Evidence first, then a 1-10 score for each assistant (Wang et al., "Large Language Models are not Fair Evaluators")',
};

/** The same for the second turn: both conversations are shown, the second turn is judged. */
export const FAIR_PAIR_MULTI_TURN: PromptScheme = {
  ...FAIR_PAIR,
  name: 'fair-pair-v1-multi-turn',
  promptTemplate: `[The Start of Assistant 1's Conversation with User]\n\n### User:\n{question_1}\n\n### Assistant 1:\n{answer_a_1}\n\n### User:\n{question_2}\n\n### Assistant 1:\n{answer_a_2}\n\n[The End of Assistant 1's Conversation with User]\n\n[The Start of Assistant 2's Conversation with User]\n\n### User:\n{question_1}\n\n### Assistant 2:\n{answer_b_1}\n\n### User:\n{question_2}\n\n### Assistant 2:\n{answer_b_2}\n\n[The End of Assistant 2's Conversation with User]\n\n${FAIR_INSTRUCTIONS.replace('the user question displayed above', "the user's second question in the conversations displayed above")}`,
  description: `${FAIR_PAIR.description}; second turn`,
};

export const FAIR_PROMPT_SET: PromptSet = {
  default: FAIR_PAIR.name,
  ref: FAIR_PAIR.name,
  defaultMultiTurn: FAIR_PAIR_MULTI_TURN.name,
  refMultiTurn: FAIR_PAIR_MULTI_TURN.name,
};

export const SCORE_PARSER = 'scores@1';
export const DEFAULT_SAMPLES = 3;

/** The two scores of one reply, by position, or null when either is missing or outside 1..10. */
export function parseScores(reply: string): { first: number; second: number } | null {
  const one = lastMatch(reply, /Score of the Assistant 1:\s*\**\s*(\d+(?:\.\d+)?)/gi);
  const two = lastMatch(reply, /Score of the Assistant 2:\s*\**\s*(\d+(?:\.\d+)?)/gi);
  if (one === null || two === null) return null;
  if (one < 1 || one > 10 || two < 1 || two > 10) return null;
  return { first: one, second: two };
}

function lastMatch(s: string, re: RegExp): number | null {
  let last: string | undefined;
  for (const m of s.matchAll(re)) last = m[1];
  return last === undefined ? null : Number(last);
}

/** One sample's scores mapped back to the match's models. */
export function scoresToModels(
  s: { first: number; second: number },
  order: Order,
): { s1: number; s2: number } {
  return order === 'AB' ? { s1: s.first, s2: s.second } : { s1: s.second, s2: s.first };
}

export function verdictFromScores(s1: number, s2: number): Verdict {
  return s1 > s2 ? 'model_1' : s1 < s2 ? 'model_2' : 'tie';
}

/** A score-based game's verdict about the match's models, read from its reply (`error` when it gives no scores). */
export function scoreVerdict(reply: string, order: Order): Verdict {
  const p = parseScores(reply);
  if (!p) return 'error';
  const m = scoresToModels(p, order);
  return verdictFromScores(m.s1, m.s2);
}

/** A sample as stored: the raw reply of one game, its order and sample index. */
export interface ScoreSample {
  order: Order;
  sample: number;
  reply: string;
}

export interface CalibratedMatch {
  /** valid samples per order, and unparsable ones (excluded, counted) */
  validAB: number;
  validBA: number;
  unparsable: number;
  /** MEC means per order (model 1, model 2), null when that order has no valid sample */
  ab: { s1: number; s2: number } | null;
  ba: { s1: number; s2: number } | null;
  /** BPC: each model's score averaged over both orders */
  score1: number | null;
  score2: number | null;
  /** 'error' when an order has no valid sample: nothing is divided by zero */
  verdict: Verdict;
  /** why the verdict is an error */
  error?: string;
  /** BPDE: entropy (bits) of the win/tie/lose distribution over the valid samples of both orders */
  entropy: number;
  /** the verdict of the first sample of each order alone, for the uncalibrated baseline */
  single: { ab: Verdict; ba: Verdict };
}

/**
 * MEC + BPC: average each order's valid samples (MEC), then each model's score over both orders (BPC),
 * and compare. Unparsable samples are excluded and counted; an order with no valid sample makes the
 * match an error (BPC needs both orders).
 */
export function calibrate(samples: ScoreSample[]): CalibratedMatch {
  const acc = { AB: { s1: 0, s2: 0, n: 0 }, BA: { s1: 0, s2: 0, n: 0 } };
  // the same sums in exact integers (scores in millionths), for the verdict
  const exact = { AB: 0, BA: 0 };
  const votes = { model_1: 0, model_2: 0, tie: 0 };
  let unparsable = 0;
  const first: Record<Order, { sample: number; v: Verdict }> = {
    AB: { sample: Infinity, v: 'error' },
    BA: { sample: Infinity, v: 'error' },
  };
  for (const s of samples) {
    const p = parseScores(s.reply);
    if (!p) {
      unparsable++;
      if (s.sample <= first[s.order].sample) first[s.order] = { sample: s.sample, v: 'error' };
      continue;
    }
    const m = scoresToModels(p, s.order);
    const a = acc[s.order];
    a.s1 += m.s1;
    a.s2 += m.s2;
    a.n++;
    exact[s.order] += micro(m.s1) - micro(m.s2);
    const v = verdictFromScores(m.s1, m.s2) as 'model_1' | 'model_2' | 'tie';
    votes[v]++;
    // stats/slot.ts's rule: the lowest sample index, the later game among equal ones
    if (s.sample <= first[s.order].sample) first[s.order] = { sample: s.sample, v };
  }
  const mean = (a: { s1: number; s2: number; n: number }) =>
    a.n ? { s1: a.s1 / a.n, s2: a.s2 / a.n } : null;
  const ab = mean(acc.AB);
  const ba = mean(acc.BA);
  const out: CalibratedMatch = {
    validAB: acc.AB.n,
    validBA: acc.BA.n,
    unparsable,
    ab,
    ba,
    score1: null,
    score2: null,
    verdict: 'error',
    entropy: entropy([votes.model_1, votes.tie, votes.model_2]),
    single: { ab: first.AB.v, ba: first.BA.v },
  };
  if (!ab || !ba) {
    out.error = `no valid sample in order ${!ab && !ba ? 'AB or BA' : !ab ? 'AB' : 'BA'} (${unparsable} unparsable of ${samples.length})`;
    return out;
  }
  out.score1 = (ab.s1 + ba.s1) / 2;
  out.score2 = (ab.s2 + ba.s2) / 2;
  // score1 - score2 = (dAB / nAB + dBA / nBA) / 2 has the sign of dAB nBA + dBA nAB: compared exactly
  // (integer sums times sample counts stay far below 2^53), never as averaged floats, which read about a
  // third of the exact ties with 3 samples per order as wins (19/3 against 19/3)
  const diff = exact.AB * acc.BA.n + exact.BA * acc.AB.n;
  out.verdict = diff > 0 ? 'model_1' : diff < 0 ? 'model_2' : 'tie';
  return out;
}

/** A score (1..10, at most 6 decimals are significant) in integer millionths. */
function micro(x: number): number {
  return Math.round(x * 1e6);
}

/** Shannon entropy in bits of a count vector (0 for an empty one). */
export function entropy(counts: number[]): number {
  const n = counts.reduce((a, b) => a + b, 0);
  return n ? entropyBits(Object.fromEntries(counts.map((c, k) => [k, c / n]))) : 0;
}

export interface GapRow {
  /** |score1 - score2| of the calibrated scores, bucketed: [from, to) */
  from: number;
  to: number;
  matches: number;
  /** matches whose first-sample verdicts in the two orders disagree */
  conflicts: number;
  conflict: number | null;
}

/** The conflict rate (two orders disagree, first sample of each) as a function of the calibrated score gap. */
export function conflictByGap(matches: CalibratedMatch[], edges = [0, 0.5, 1, 2, 3, Infinity]): GapRow[] {
  const rows: GapRow[] = edges
    .slice(0, -1)
    .map((from, k) => ({ from, to: edges[k + 1]!, matches: 0, conflicts: 0, conflict: null }));
  for (const m of matches) {
    if (m.score1 === null || m.score2 === null || m.single.ab === 'error' || m.single.ba === 'error')
      continue;
    const gap = Math.abs(m.score1 - m.score2);
    const row = rows.find((r) => gap >= r.from && gap < r.to);
    if (!row) continue;
    row.matches++;
    if (m.single.ab !== m.single.ba) row.conflicts++;
  }
  for (const r of rows) r.conflict = r.matches ? r.conflicts / r.matches : null;
  return rows;
}
