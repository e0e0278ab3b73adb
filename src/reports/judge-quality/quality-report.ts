// `arena judges`: the judgment-quality report, derived on read from stored games and votes.
import { HUMAN, isHumanJudge } from '../../core/constants.ts';
import type { AgreementRow } from '../../core/stats/agreement.ts';
import { gameConfidence } from '../../core/stats/confidence.ts';
import {
  qualityRows,
  qualityRowsFromOutcomes,
  winRateCorrelation,
  type CorrelationRow,
  type QualityGame,
  type QualityRow,
} from '../../core/stats/judge-quality.ts';
import { likeForLike, type LikeForLike } from '../../core/stats/like-for-like.ts';
import { pairVerdict } from '../../core/verdict/stored.ts';
import type { Game } from '../../core/types.ts';
import { storedVerdictOf } from '../../core/outcomes.ts';
import type { RunRecord, Store } from '../../storage/store.ts';
import { agreementBetween, judgeData, type JudgeData } from '../results.ts';

export interface JudgesReport {
  judges: { judge: string; games: number; votes: number }[];
  quality: QualityRow[];
  agreement: ({ judge1: string; judge2: string } & AgreementRow)[];
  correlation: CorrelationRow[];
  /** every pair of judges (humans aside) on the matches both gave a verdict on, with question-bootstrap intervals */
  likeForLike: LikeForLike[];
  /** per judge, its newest run's games with no verdict because reasoning used the whole allowance (billed, not sent again) */
  allowance: { judge: string; games: number }[];
}

export function toQualityGame(g: Game): QualityGame {
  return {
    ...storedVerdictOf(g),
    reply: g.reply,
    confidence: gameConfidence(g.verdictProbs, g.order, pairVerdict(g.verdict)),
    entropy: g.entropy ?? null,
  };
}

/**
 * The report over `judges` (default: every judge with pairwise games), agreement and correlation for every pair of
 * them (name `human` among them to compare with the experts as `arena agreement` does).
 */
export async function judgesReport(store: Store, judges?: string[]): Promise<JudgesReport> {
  const all = await store.games.judges();
  const names = judges ?? all.filter((j) => j.games > 0).map((j) => j.judge);
  const quality: QualityRow[] = [];
  for (const j of names) {
    if (isHumanJudge(j)) continue;
    const games = await store.games.list({ judge: j, kind: 'pairwise' });
    // a judge with no games of its own (GPT-4 from the gpt4_pair split) is measured on its recorded outcomes
    if (games.length) quality.push(...qualityRows(j, games.map(toQualityGame)));
    else quality.push(...qualityRowsFromOutcomes(j, (await judgeData(store, j)).outcomes));
  }
  const agreement: JudgesReport['agreement'] = [];
  const correlation: CorrelationRow[] = [];
  const data = new Map<string, JudgeData>();
  for (const j of names) data.set(j, await judgeData(store, j));
  const experts = all.some((j) => j.judge === HUMAN) ? (await judgeData(store, HUMAN)).votes : [];
  const like: LikeForLike[] = [];
  for (let i = 0; i < names.length; i++)
    for (let k = i + 1; k < names.length; k++) {
      const [j1, j2] = [names[i]!, names[k]!];
      for (const row of await agreementBetween(store, j1, j2))
        agreement.push({ judge1: j1, judge2: j2, ...row });
      correlation.push(...winRateCorrelation(j1, data.get(j1)!.outcomes, j2, data.get(j2)!.outcomes));
      if (j1 !== HUMAN && j2 !== HUMAN)
        like.push(likeForLike([j1, data.get(j1)!.outcomes], [j2, data.get(j2)!.outcomes], experts));
    }
  return {
    judges: all.filter((j) => names.includes(j.judge)),
    quality,
    agreement,
    correlation,
    likeForLike: like.filter((l) => l.matches > 0),
    allowance: allowanceOf(await store.runs.list(ALLOWANCE_RUNS), judges),
  };
}

/** How many of the newest runs are read for their games at the allowance. */
const ALLOWANCE_RUNS = 500;

/** Per judge, its newest run's games at the allowance (sent, and left unsent): the newest run says what still is. */
function allowanceOf(runs: RunRecord[], judges?: string[]): { judge: string; games: number }[] {
  const newest = new Map<string, RunRecord>();
  for (const r of runs) if (!judges || judges.includes(r.judge)) newest.set(r.judge, r); // runs come in start order
  return [...newest.values()].flatMap((r) => {
    const games = Number(r.config?.allowance ?? 0) + Number(r.config?.allowanceBefore ?? 0);
    return games ? [{ judge: r.judge, games }] : [];
  });
}

/** Per-game confidence rows of a judge (the games that carry verdict probabilities). */
export async function gameConfidences(store: Store, judge: string) {
  const games = await store.games.list({ judge, kind: 'pairwise' });
  return games.map((g) => ({
    game: g.id.slice(0, 12),
    question: g.match.questionId,
    turn: g.match.turn,
    model1: g.match.model1,
    model2: g.match.model2!,
    order: g.order,
    verdict: pairVerdict(g.verdict),
    pA: g.verdictProbs?.A ?? null,
    pB: g.verdictProbs?.B ?? null,
    pC: g.verdictProbs?.C ?? null,
    entropy: g.entropy ?? null,
    // SoftEnt-Cali (nats; lower = more reliable), where the judge computed it
    ...(g.reliability != null ? { reliability: g.reliability } : {}),
  }));
}
