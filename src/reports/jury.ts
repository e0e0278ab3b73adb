// A jury (core/jury.ts) read from the store: its pooled outcomes, its standings, its members' agreement, the effective
// number of independent votes, and everyone's agreement with people next to the jury's.
import { agreement, type AgreementRow } from '../core/stats/agreement.ts';
import { comparisons, kappaTable, type KappaRow } from '../core/stats/kappa.ts';
import { effectiveVotes, juryId, poolGames, poolOutcomes, type JuryDef } from '../core/jury.ts';
import { positionBias } from '../core/stats/bias.ts';
import { pairGameOf } from '../core/outcomes.ts';
import { biasReport } from './analytics.ts';
import { pairwiseStandings } from '../core/standings.ts';
import { AUTHOR, HUMAN } from '../core/constants.ts';
import { ArenaError, type Standing } from '../core/types.ts';
import type { Store } from '../storage/store.ts';
import { judgeData, outcomeVotes, type JudgeData } from './results.ts';

/** Two members side by side on the matches both gave a verdict on (all turns), with and without ties. */
export interface MemberPair {
  judge1: string;
  judge2: string;
  withTie: KappaRow;
  withoutTie: KappaRow;
}

export interface PeopleAgreement {
  /** the people's judge id (`human`: MT-Bench's experts; `author`: its authors) */
  people: string;
  votes: number;
  /** the jury's rows first, then each member's: FastChat's compute_agreement per turn, with and without ties */
  rows: (AgreementRow & { judge: string })[];
}

/** Position bias from games (none: a judge known only by recorded verdicts, or a jury with such a member). */
export interface BiasLine {
  judge: string;
  games: number;
  /** of the decisive games, the share that picked the answer shown first */
  positionA: number | null;
  /** share of matches whose two orders disagree */
  conflict: number | null;
  signTestP: number | null;
}

export interface JuryReport {
  jury: string;
  rule: JuryDef['rule'];
  members: string[];
  /** matches every member has an outcome for (the jury's matches), and of those the ones it pooled to an error */
  matches: number;
  errors: number;
  standings: Standing[];
  pairs: MemberPair[];
  /** mean pairwise Cohen's kappa (with ties) and the effective number of independent votes it gives */
  meanKappa: number;
  effectiveVotes: number;
  formula: string;
  people: PeopleAgreement[];
  /** the jury's position bias from its pooled games (core/jury.ts poolGames), then each member's */
  bias: BiasLine[];
}

const EFFECTIVE_VOTES_FORMULA =
  "n_eff = n / (1 + (n - 1) * mean pairwise Cohen's kappa, clamped to [0, 1]): Kish's design effect (Survey Sampling, 1965)";

/** A jury's data as any judge's: its pooled outcomes and the votes they make. */
async function juryData(jury: JuryDef, read: (judge: string) => Promise<JudgeData>): Promise<JudgeData> {
  const members = await Promise.all(jury.judges.map(read));
  const outcomes = poolOutcomes(
    members.map((m) => m.outcomes),
    jury.rule,
  );
  return { outcomes, votes: outcomeVotes(juryId(jury.name), outcomes) };
}

/** The jury's report; a member with no games and no recorded verdicts is refused, naming the known judges. */
export async function juryReport(store: Store, jury: JuryDef): Promise<JuryReport> {
  const known = new Set((await store.games.judges()).map((j) => j.judge));
  const missing = jury.judges.filter((j) => !known.has(j));
  if (missing.length)
    throw new ArenaError(
      `jury "${jury.name}": no games or recorded verdicts for ${missing.map((j) => `"${j}"`).join(', ')} (judges: ${[...known].sort().join(', ') || 'none'})`,
    );
  const cache = new Map<string, Promise<JudgeData>>();
  const read = (j: string) => cache.get(j) ?? cache.set(j, judgeData(store, j)).get(j)!;
  const id = juryId(jury.name);
  const data = await juryData(jury, read);
  const pairs: MemberPair[] = [];
  for (let a = 0; a < jury.judges.length; a++)
    for (let b = a + 1; b < jury.judges.length; b++) {
      const [j1, j2] = [jury.judges[a]!, jury.judges[b]!];
      const comps = comparisons((await read(j1)).votes, (await read(j2)).votes).map((c) => ({
        ...c,
        turn: 0,
      }));
      const rows = kappaTable(comps).filter((r) => r.category === 'all');
      pairs.push({
        judge1: j1,
        judge2: j2,
        withTie: rows.find((r) => r.setup === 'with-tie')!,
        withoutTie: rows.find((r) => r.setup === 'without-tie')!,
      });
    }
  const meanKappa = pairs.reduce((s, p) => s + p.withTie.kappa, 0) / pairs.length;
  const people: PeopleAgreement[] = [];
  for (const p of [HUMAN, AUTHOR]) {
    if (!known.has(p)) continue;
    const votes = (await read(p)).votes;
    const rowsOf = (judge: string, d: JudgeData) => agreement(d.votes, votes).map((r) => ({ judge, ...r }));
    const rows = [...rowsOf(id, data)];
    for (const j of jury.judges) rows.push(...rowsOf(j, await read(j)));
    people.push({ people: p, votes: votes.length, rows });
  }
  return {
    bias: await biasLines(store, jury),
    jury: id,
    rule: jury.rule,
    members: jury.judges,
    matches: data.outcomes.length,
    errors: data.outcomes.filter((o) => o.outcome === 'error').length,
    standings: pairwiseStandings(data.outcomes),
    pairs,
    meanKappa,
    effectiveVotes: effectiveVotes(jury.judges.length, meanKappa),
    formula: EFFECTIVE_VOTES_FORMULA,
    people,
  };
}

/** The jury's position bias over its pooled games, and each member's over its own, as `arena bias` reads them. */
async function biasLines(store: Store, jury: JuryDef): Promise<BiasLine[]> {
  const category = new Map((await store.catalog.questions()).map((q) => [q.id, q.category]));
  const games = await Promise.all(
    jury.judges.map(async (j) => (await store.games.facts({ judge: j, kind: 'pairwise' })).map(pairGameOf)),
  );
  const pooled = poolGames(games, jury.rule).map((g) => ({
    ...g,
    category: category.get(g.questionId) ?? '?',
  }));
  const line = (judge: string, row: ReturnType<typeof positionBias>[number] | undefined): BiasLine => ({
    judge,
    games: row?.games ?? 0,
    positionA: row?.positionA ?? null,
    conflict: row?.conflict ?? null,
    signTestP: row?.signTestP ?? null,
  });
  const out = [line(juryId(jury.name), positionBias(pooled, [])[0])];
  for (const j of jury.judges) out.push(line(j, (await biasReport(store, j, [])).games[0]));
  return out;
}
