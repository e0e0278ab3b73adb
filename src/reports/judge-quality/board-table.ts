// The judge leaderboard as one flat row per judge: the columns of /api/judge-board and its CSV.
import type { Rate } from '../../core/stats/judge-behaviour.ts';
import type { BoardRow } from './board.ts';

/** The board as one flat row per judge (the site's /api/judge-board and its CSV). */
export const BOARD_COLUMNS = [
  'judge',
  'rank',
  'games',
  'source',
  'accuracy',
  'accuracyLo',
  'accuracyHi',
  'accuracyBySet',
  'rankExperts',
  'expertsS1Kappa',
  'expertsS1KappaLo',
  'expertsS1KappaHi',
  'expertsS2Agreement',
  'experts',
  'consistency',
  'consistencyLo',
  'consistencyHi',
  'firstPosition',
  'firstPositionLo',
  'firstPositionHi',
  'errorRate',
  'errorRateLo',
  'errorRateHi',
  'tieRate',
  'tieRateLo',
  'tieRateHi',
  'longerShare',
  'longerShareLo',
  'longerShareHi',
  'costPer1000Games',
  'secondsPer1000Games',
  'level',
] as const;

export function flatBoardRow(r: BoardRow): Record<(typeof BOARD_COLUMNS)[number], unknown> {
  const s1 = r.experts.find((e) => e.turn === 0 && e.setup === 'with-tie');
  const s2 = r.experts.find((e) => e.turn === 0 && e.setup === 'without-tie');
  const rate = (name: string, x: Rate | null) => ({
    [name]: x?.value ?? null,
    [`${name}Lo`]: x?.lo ?? null,
    [`${name}Hi`]: x?.hi ?? null,
  });
  return {
    judge: r.judge,
    rank: r.rank,
    games: r.games,
    source: r.source,
    ...rate('accuracy', r.accuracyOverall),
    accuracyBySet: r.accuracy,
    rankExperts: r.rankExperts,
    expertsS1Kappa: s1?.kappa ?? null,
    expertsS1KappaLo: s1?.lo ?? null,
    expertsS1KappaHi: s1?.hi ?? null,
    expertsS2Agreement: s2?.ratio ?? null,
    experts: r.experts,
    ...rate('consistency', r.consistency),
    ...rate('firstPosition', r.firstPosition),
    ...rate('errorRate', r.errorRate),
    ...rate('tieRate', r.tieRate),
    ...rate('longerShare', r.longerShare),
    costPer1000Games: r.costPer1000Games,
    secondsPer1000Games: r.secondsPer1000Games,
    level: r.level,
  } as Record<(typeof BOARD_COLUMNS)[number], unknown>;
}
