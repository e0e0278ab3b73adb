// The judges page's data: the judge leaderboard, accuracy on labelled sets, consistency across the two orders,
// agreement of every pair of judges and position bias.
import { comparisons, kappaTable, type KappaRow } from '../../core/stats/kappa.ts';
import type { AccuracyRow } from '../../core/stats/pair-accuracy.ts';
import { ANNOTATORS, AUTHOR, isHumanJudge } from '../../core/constants.ts';
import type { Store } from '../../storage/store.ts';
import { voterOutliers, type VoterCheck } from '../../core/stats/voter-outliers.ts';
import { accuracyReport } from '../accuracy.ts';
import { biasReport } from '../analytics.ts';
import { judgeBoard, type BoardRow } from '../judge-quality/board.ts';
import { judgeDuel, type JudgeDuel } from '../judge-quality/duel.ts';
import type { Catalog, Memo, SiteOptions } from './catalog.ts';
import { allReads } from './reads.ts';

export interface AgreementEntry extends Omit<
  KappaRow,
  'lo' | 'hi' | 'category' | 'questions' | 'nanRounds' | 'note'
> {
  judge1: string;
  judge2: string;
  /** Cohen's kappa's bootstrap interval (questions resampled); null with too few questions or kappa undefined */
  kappaLo: number | null;
  kappaHi: number | null;
}

export interface BiasEntry {
  judge: string;
  /** games: played in both orders (per-order figures known); recorded: combined verdicts only */
  source: 'games' | 'recorded';
  games: number | null;
  errors: number | null;
  /** of the decisive games, the share that picked the answer shown first */
  positionA: number | null;
  matches: number;
  conflicts: number;
  conflict: number | null;
  favoursFirst: number | null;
  favoursSecond: number | null;
  withTie: number | null;
  /** exact two-sided sign test of favoursFirst against favoursSecond (null: none, or recorded verdicts) */
  signTestP: number | null;
}

export class JudgeTables {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
    private readonly catalog: Catalog,
    private readonly o: SiteOptions,
  ) {}

  /** The judge leaderboard (src/reports/judge-quality/board.ts): every judge, with intervals. */
  judgeBoard(): Promise<BoardRow[]> {
    return this.cache.get(
      'judgeBoard',
      () => judgeBoard(this.store, { rounds: this.o.bootstrapRounds }),
      // the answers' lengths: the longer-answer share
      allReads('answers'),
    );
  }

  /** GPT-4 beside the study's judge (src/reports/judge-quality/duel.ts): the leaderboard's comparison. */
  duel(pair: [string, string]): Promise<JudgeDuel> {
    return this.cache.get(
      `duel:${pair.join(':')}`,
      () => judgeDuel(this.store, ...pair, (j) => this.catalog.judgeData(j)),
      allReads(),
    );
  }

  /** Accuracy of every judge on every labelled pair set (`arena accuracy`). */
  accuracy(): Promise<AccuracyRow[]> {
    return this.cache.get(
      'accuracy',
      () => accuracyReport(this.store, { rounds: this.o.bootstrapRounds }),
      allReads(),
    );
  }

  /** How often a judge's two orders agree (recorded verdicts carry their inconsistent count too). */
  consistency() {
    return this.cache.get(
      'consistency',
      async () => {
        const out = [];
        for (const judge of await this.catalog.rankedJudges()) {
          if (isHumanJudge(judge)) continue;
          const { outcomes } = await this.catalog.judgeData(judge);
          let inconsistent = 0;
          let error = 0;
          for (const o of outcomes) {
            if (o.outcome === 'inconsistent') inconsistent++;
            else if (o.outcome === 'error') error++;
          }
          const consistent = outcomes.length - inconsistent - error;
          out.push({
            judge,
            matches: outcomes.length,
            consistent,
            inconsistent,
            error,
            consistency: outcomes.length ? consistent / outcomes.length : 0,
          });
        }
        return out;
      },
      allReads(),
    );
  }

  /** Agreement (S1 with ties, S2 without) per turn of every pair of judges, with Cohen's kappa and its interval. */
  agreement(): Promise<AgreementEntry[]> {
    return this.cache.get(
      'agreement',
      async () => {
        const judges = (await this.catalog.judges()).map((j) => j.judge);
        const out: AgreementEntry[] = [];
        for (let i = 0; i < judges.length; i++)
          for (let j = i; j < judges.length; j++) {
            const j1 = judges[i]!;
            const j2 = judges[j]!;
            const same = j1 === j2;
            // a judge against itself is meaningful only for several voters per item (the humans)
            if (same && !isHumanJudge(j1) && j1 !== AUTHOR) continue;
            const a = await this.catalog.judgeData(j1);
            const comps = comparisons(a.votes, same ? 'same' : (await this.catalog.judgeData(j2)).votes);
            for (const r of kappaTable(comps, { same, rounds: this.o.bootstrapRounds })) {
              if (!r.total) continue;
              const { lo, hi, category: _c, questions: _q, nanRounds: _n, note: _t, ...rest } = r;
              out.push({ judge1: j1, judge2: j2, ...rest, kappaLo: lo, kappaHi: hi });
            }
          }
        return out;
      },
      allReads(),
    );
  }

  /**
   * The annotators' quality: each one's agreement with the majority of the other votes on the same matches and the
   * random-voter test (core/stats/voter-outliers.ts); voters by id (annotator_<n>), never by name.
   */
  annotators(): Promise<VoterCheck[]> {
    return this.cache.get('annotators', async () => {
      const judges = (await this.catalog.judges()).map((j) => j.judge);
      if (!judges.includes(ANNOTATORS)) return [];
      const votes = (await this.catalog.judgeData(ANNOTATORS)).votes;
      const items = new Set(votes.map((v) => `${v.turn}\u0000${v.questionId}`));
      const others = [];
      for (const j of judges) {
        if (j === ANNOTATORS || j === AUTHOR) continue;
        for (const v of (await this.catalog.judgeData(j)).votes)
          if (items.has(`${v.turn}\u0000${v.questionId}`)) others.push(v);
      }
      return voterOutliers(votes, others);
    });
  }

  /** How many annotator votes the stored figures count, and when: the Worker's are those of the last publish. */
  annotatorVotes(): Promise<{ votes: number; at: number }> {
    return this.cache.get(
      'annotatorVotes',
      async () => ({
        votes: (await this.catalog.judges()).find((j) => j.judge === ANNOTATORS)?.votes ?? 0,
        at: Date.now(),
      }),
      allReads(),
    );
  }

  /** Position bias of every judge with games (per-order figures), or with recorded verdicts (conflict rate only). */
  bias(): Promise<BiasEntry[]> {
    return this.cache.get(
      'bias',
      async () => {
        const out: BiasEntry[] = [];
        for (const judge of await this.catalog.rankedJudges()) {
          if (isHumanJudge(judge)) continue;
          const r = await biasReport(this.store, judge, []);
          for (const g of r.games)
            out.push({
              judge,
              source: 'games',
              games: g.games,
              errors: g.errors,
              positionA: g.positionA,
              matches: g.matches,
              conflicts: g.favoursFirst + g.favoursSecond + g.withTie,
              conflict: g.conflict,
              favoursFirst: g.favoursFirst,
              favoursSecond: g.favoursSecond,
              withTie: g.withTie,
              signTestP: g.signTestP,
            });
          for (const c of r.recorded)
            out.push({
              judge,
              source: 'recorded',
              games: null,
              errors: null,
              positionA: null,
              matches: c.matches,
              conflicts: c.inconsistent,
              conflict: c.conflict,
              favoursFirst: null,
              favoursSecond: null,
              withTie: null,
              signTestP: null,
            });
        }
        return out;
      },
      allReads(),
    );
  }
}
