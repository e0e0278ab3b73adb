// Two judges side by side (GPT-4 vs Llama-2-70B): quality per turn, agreement with the experts, the correlation of
// their leaderboards, and a reading of the difference.
import { agreement, type AgreementRow } from '../../core/stats/agreement.ts';
import { qualityRows, qualityRowsFromOutcomes, winRateCorrelation } from '../../core/stats/judge-quality.ts';
import { judgeFigures, readTwoJudges, type JudgeFigures, type JudgeSide } from '../../core/judge-reading.ts';
import { likeForLike, type LikeForLike } from '../../core/stats/like-for-like.ts';
import { ownMatches, type OwnMatches } from '../../core/stats/own-matches.ts';
import { readDuel } from '../../core/duel-reading.ts';
import type { Store } from '../../storage/store.ts';
import { toQualityGame } from './quality-report.ts';
import type { JudgeData } from '../results.ts';
import { HUMAN, REFERENCE_JUDGE } from '../../core/constants.ts';

/** The name `arena start` gives the Judge Llama 2 study's judge (upstage/Llama-2-70b-instruct-v2). */
export const STUDY_JUDGE = 'llama-2-70b-instruct-v2';

export interface JudgeDuel {
  sides: (JudgeSide & { figures: JudgeFigures })[];
  /** Pearson r of the models' adjusted win rates over the matches both judged */
  r: number | null;
  experts: AgreementRow[];
  /** both judges on the matches both gave a verdict on, with intervals */
  likeForLike: LikeForLike;
  /** each judge on its own matches (the naive comparison), with intervals */
  ownMatches: OwnMatches;
  reading: string;
}

/** The pair the home page compares: GPT-4 and the study's judge, else any judge named like a Llama-2-70B. */
export function duelPair(judges: string[]): [string, string] | undefined {
  if (!judges.includes(REFERENCE_JUDGE)) return undefined;
  const llama = judges.includes(STUDY_JUDGE) ? STUDY_JUDGE : judges.find((j) => /llama-?2-70b/i.test(j));
  return llama ? [REFERENCE_JUDGE, llama] : undefined;
}

/** The same figures as `arena judges --report` and `arena agreement`; `read` is the site's cached judgeData. */
export async function judgeDuel(
  store: Store,
  reference: string,
  other: string,
  read: (judge: string) => Promise<JudgeData>,
): Promise<JudgeDuel> {
  const withExperts = (await store.games.judges()).some((j) => j.judge === HUMAN);
  const experts = withExperts ? await read(HUMAN) : undefined;
  const side = async (judge: string) => {
    const games = await store.games.list({ judge, kind: 'pairwise' });
    const d = await read(judge);
    // a judge with no games of its own (GPT-4 from the gpt4_pair split) is measured on its recorded outcomes
    const quality = games.length
      ? qualityRows(judge, games.map(toQualityGame))
      : qualityRowsFromOutcomes(judge, d.outcomes);
    return {
      judge,
      quality,
      agreement: experts ? agreement(d.votes, experts.votes) : [],
      outcomes: d.outcomes,
    };
  };
  const [a, b] = [await side(reference), await side(other)];
  const expertRows = experts ? agreement(experts.votes, 'same') : [];
  const expertsNoTie = Object.fromEntries(
    expertRows
      .filter((e) => e.setup === 'without-tie')
      .map((e) => [e.turn, e.total ? e.agree / e.total : null]),
  );
  const r =
    winRateCorrelation(a.judge, a.outcomes, b.judge, b.outcomes).find((c) => c.variant === 'adjusted')?.r ??
    null;
  const like = likeForLike([a.judge, a.outcomes], [b.judge, b.outcomes], experts?.votes ?? []);
  const own = ownMatches([a.judge, a.outcomes], [b.judge, b.outcomes]);
  const sides = [a, b].map(({ judge, quality, agreement: ag }) => ({ judge, quality, agreement: ag }));
  const ex = expertRows.length ? { experts: expertsNoTie } : {};
  return {
    sides: sides.map((s) => ({ ...s, figures: judgeFigures(s) })),
    r,
    experts: expertRows,
    likeForLike: like,
    ownMatches: own,
    // like for like first, each judge on its own matches after (readTwoJudges without common matches)
    reading: like.matches
      ? readDuel(sides[0]!, sides[1]!, like, own, ex.experts)
      : readTwoJudges(sides[0]!, sides[1]!, { r, ...ex }),
  };
}
