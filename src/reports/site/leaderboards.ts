// The leaderboard and model pages' data: one judge's standings with Bradley–Terry ratings and intervals, the
// tables per judge and per group of models that met, single-answer grading, the win matrix and one model's page.
import { battleTable } from '../../core/stats/battle-table.ts';
import { bootstrapBradleyTerry } from '../../core/stats/rating-bootstrap.ts';
import { sandwichBradleyTerry } from '../../core/stats/sandwich.ts';
import { ratingsByGroup } from '../../core/groups.ts';
import { estimability } from '../../core/stats/separation.ts';
import { pairwiseStandings } from '../../core/standings.ts';
import type { MatchOutcome, SingleStanding, Standing } from '../../core/types.ts';
import { HUMAN } from '../../core/constants.ts';
import type { Store } from '../../storage/store.ts';
import { adaptiveNote, adaptiveRounds } from '../adaptive.ts';
import { outcomeBattles, singleResults, standings, type StandingsQuery } from '../results.ts';
import type { Catalog, Filter, Memo, SiteOptions } from './catalog.ts';
import { allReads, categoryReads, judgeReads } from './reads.ts';

export interface LeaderRow extends Standing {
  rank: number;
  /** set when the judge's matches form several groups of models that never met: 1 = the largest (ranks and ratings are per group) */
  group?: number;
  /** Bradley–Terry rating (mean 1000, base 10, scale 400) and its 95% bootstrap interval over questions */
  rating: number | null;
  ratingLo: number | null;
  ratingHi: number | null;
  /** why the rating or its interval is missing ("not estimable: 10 wins, 0 losses (...)"), else null */
  ratingNote: string | null;
  /** Chatbot Arena's Rank (UB): 1 + models whose interval lies wholly above (`rank` is the row's place by adjusted win rate) */
  rankUB: number | null;
  /** the rank follows the ratings alone: too few questions for intervals (core/stats/rating-rows.ts) */
  rankFromPoint: boolean | null;
  /** best and worst rank consistent with simultaneous 95% intervals of all rating differences */
  rankBest: number | null;
  rankWorst: number | null;
  /** best and worst rank consistent with simultaneous 95% intervals of this model's own differences only
   * (marginal, Mogstad et al.): "what rank is this one model" */
  marginalRankBest: number | null;
  marginalRankWorst: number | null;
  /** few battles or a wide interval (README: "Rank intervals") */
  preliminary: boolean | null;
}

export interface MatrixCell {
  model: string;
  opponent: string;
  win: number;
  loss: number;
  tie: number;
  error: number;
  battles: number;
  /** (win + tie/2) / (win + loss + tie), null without battles */
  winRateAdjusted: number | null;
}

export class Leaderboards {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
    private readonly catalog: Catalog,
    private readonly o: SiteOptions,
  ) {}

  /** One judge's leaderboard: FastChat's standings plus Bradley–Terry with a bootstrap interval. */
  leaderboard(judge: string, f: Filter = {}): Promise<LeaderRow[]> {
    return this.cache.get(
      `leaderboard:${judge}:${f.turn ?? ''}:${f.category ?? ''}`,
      async () => {
        const all = await this.catalog.outcomes(judge, f);
        // tournaments that never met (no model in common) are ranked and rated apart: one group each
        return ratingsByGroup(
          all,
          (o) => o,
          (part) => this.groupRows(part),
          (rows) => rows,
        ).rows;
      },
      judgeReads(judge, ...categoryReads(f)),
    );
  }

  /** FastChat's standings plus Bradley–Terry with a bootstrap interval, for one group of models. */
  private groupRows(outcomes: MatchOutcome[]): LeaderRow[] {
    const rows = pairwiseStandings(outcomes);
    const battles = outcomeBattles(outcomes);
    // a model that won (or lost) every match has no finite rating (a note says why); the sandwich rests on one
    // finite fit, so a separated table always takes the bootstrap
    const fit = () => {
      const table = battleTable(battles);
      return this.o.intervals === 'sandwich' && !estimability(table.pairs).separated
        ? sandwichBradleyTerry(table)
        : bootstrapBradleyTerry(table, { rounds: this.o.bootstrapRounds, unit: 'question' });
    };
    const bt = battles.length && rows.length > 1 ? fit().rows : [];
    const byModel = new Map(bt.map((r) => [r.model, r]));
    return rows.map((r, k) => {
      const b = byModel.get(r.model);
      // lmarena's Rank (UB): 1 + the models whose interval lies wholly above
      return {
        rank: b?.rank ?? k + 1,
        ...r,
        rating: b?.rating ?? null,
        ratingLo: b?.lo ?? null,
        ratingHi: b?.hi ?? null,
        ratingNote: b?.note ?? null,
        rankUB: b?.rank ?? null,
        rankFromPoint: b ? (b.rankFromPoint ?? false) : null,
        rankBest: b?.rankBest ?? null,
        rankWorst: b?.rankWorst ?? null,
        marginalRankBest: b?.marginalRankBest ?? null,
        marginalRankWorst: b?.marginalRankWorst ?? null,
        preliminary: b?.preliminary ?? null,
      };
    });
  }

  /**
   * The leaderboard tables: one per judge (or only `only`), and one per group of models that played one another
   * when a judge's models form several (rows carry `group` only then).
   */
  async boards(f: Filter, only?: string) {
    const out = [];
    const judges = only ? [only] : await this.catalog.rankedJudges();
    // asked together: one round trip where the store batches reads (D1)
    const tables = await Promise.all(judges.map((j) => this.leaderboard(j, f)));
    for (const [i, judge] of judges.entries()) {
      const rows = tables[i]!;
      const groups = [...new Set(rows.map((r) => r.group ?? 0))];
      for (const g of groups)
        out.push({
          judge,
          mode: 'pairwise-all' as const,
          rows: rows.filter((r) => (r.group ?? 0) === g),
          group: g,
          groups: groups.length,
        });
    }
    return out;
  }

  /** Every ranked judge's leaderboard over all the data, and the models in the experts' order (else the first judge's). */
  async judgeBoards(): Promise<{ models: string[]; boards: { judge: string; rows: LeaderRow[] }[] }> {
    const judges = await this.catalog.rankedJudges();
    const tables = await Promise.all(judges.map((j) => this.leaderboard(j)));
    const boards = judges.map((judge, i) => ({ judge, rows: tables[i]! }));
    const models = (boards.find((b) => b.judge === HUMAN) ?? boards[0])?.rows.map((r) => r.model) ?? [];
    return { models, boards };
  }

  /** Single-answer grading (MT-Bench's 1–10 score) of every judge that has single games. */
  single(f: Filter = {}): Promise<{ judge: string; rows: SingleStanding[] }[]> {
    return this.cache.get(
      `single:${f.turn ?? ''}:${f.category ?? ''}`,
      async () => {
        const out = [];
        for (const j of await this.catalog.judges()) {
          if (!j.games) continue;
          const rows = await singleResults(this.store, {
            judge: j.judge,
            ...(f.turn !== undefined ? { turn: f.turn } : {}),
            ...(f.category ? { category: f.category } : {}),
          });
          if (rows.length) out.push({ judge: j.judge, rows });
        }
        return out;
      },
      allReads(...categoryReads(f)),
    );
  }

  /** The note for a judge whose games come partly from adaptive runs (reports/adaptive.ts), else undefined. */
  adaptive(judge: string): Promise<string | undefined> {
    return this.cache.get(`adaptive:${judge}`, async () =>
      adaptiveNote(await adaptiveRounds(this.store, judge)),
    );
  }

  /** FastChat-shaped standings (`arena standings --json`): /api/standings. */
  standings(
    q: Pick<StandingsQuery, 'judge' | 'turn' | 'baseline'> & {
      mode: 'pairwise-all' | 'pairwise-baseline' | 'single';
    },
  ): Promise<Standing[]> {
    return this.cache.get(
      `standings:${q.judge}:${q.mode}:${q.turn ?? ''}:${q.baseline ?? ''}`,
      () => standings(this.store, q),
      judgeReads(q.judge),
    );
  }

  /** The pairwise win matrix of one judge: every ordered pair of models that met. */
  matrix(judge: string, f: Filter = {}): Promise<{ models: string[]; cells: MatrixCell[] }> {
    return this.cache.get(
      `matrix:${judge}:${f.turn ?? ''}:${f.category ?? ''}`,
      async () => {
        const cells = new Map<string, MatrixCell>();
        const cell = (model: string, opponent: string) => {
          const k = `${model}\u0000${opponent}`;
          let c = cells.get(k);
          if (!c)
            cells.set(
              k,
              (c = { model, opponent, win: 0, loss: 0, tie: 0, error: 0, battles: 0, winRateAdjusted: null }),
            );
          return c;
        };
        for (const o of await this.catalog.outcomes(judge, f)) {
          const x = cell(o.model1, o.model2);
          const y = cell(o.model2, o.model1);
          x.battles++;
          y.battles++;
          if (o.outcome === 'model_1') (x.win++, y.loss++);
          else if (o.outcome === 'model_2') (x.loss++, y.win++);
          else if (o.outcome === 'error') (x.error++, y.error++);
          else (x.tie++, y.tie++);
        }
        for (const c of cells.values()) {
          const n = c.win + c.loss + c.tie;
          c.winRateAdjusted = n ? (c.win + c.tie / 2) / n : null;
        }
        const models = (await this.leaderboard(judge, f)).map((r) => r.model);
        const order = new Map(models.map((m, k) => [m, k]));
        const list = [...cells.values()].sort(
          (a, b) =>
            order.get(a.model)! - order.get(b.model)! || order.get(a.opponent)! - order.get(b.opponent)!,
        );
        return { models, cells: list };
      },
      judgeReads(judge, ...categoryReads(f)),
    );
  }

  /** One model under one judge: its standing per category and per turn, and every opponent. */
  model(
    judge: string,
    model: string,
  ): Promise<{
    byCategory: (Standing & { category: string })[];
    byTurn: (Standing & { turn: number })[];
    opponents: MatrixCell[];
  }> {
    return this.cache.get(
      `model:${judge}:${model}`,
      async () => {
        const byCategory = [];
        for (const category of await this.catalog.categories()) {
          const row = (await this.leaderboard(judge, { category })).find((r) => r.model === model);
          if (row) byCategory.push({ category, ...strip(row) });
        }
        const byTurn = [];
        for (const turn of [1, 2]) {
          const row = (await this.leaderboard(judge, { turn })).find((r) => r.model === model);
          if (row) byTurn.push({ turn, ...strip(row) });
        }
        const opponents = (await this.matrix(judge)).cells
          .filter((c) => c.model === model)
          .sort((a, b) => (b.winRateAdjusted ?? -1) - (a.winRateAdjusted ?? -1));
        return { byCategory, byTurn, opponents };
      },
      judgeReads(judge, 'questions'),
    );
  }
}

/** A leaderboard row without its rank and rating columns: the plain standing. */
function strip(r: LeaderRow): Standing {
  const {
    rank: _r,
    rating: _a,
    ratingLo: _b,
    ratingHi: _c,
    ratingNote: _d,
    rankUB: _u,
    rankFromPoint: _fp,
    rankBest: _rb,
    rankWorst: _rw,
    marginalRankBest: _mb,
    marginalRankWorst: _mw,
    preliminary: _p,
    ...s
  } = r;
  return s;
}
