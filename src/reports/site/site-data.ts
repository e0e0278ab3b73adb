// What the site shows, computed from the Store through core (standings, ratings, agreement) and
// memoized per data version (the site passes its result cache, src/web/cache.ts). Every function returns
// plain rows: the pages render them and the /api endpoints serve them as JSON and CSV with the same shapes.
// Shared by the CLI and the site, so it imports nothing from src/web.
import { comparisons, kappaTable, type KappaRow } from '../core/stats/kappa.ts';
import { biasReport } from './analytics.ts';
import { battleTable, bootstrapBradleyTerry } from '../core/stats/bootstrap.ts';
import { sandwichBradleyTerry } from '../core/stats/sandwich.ts';
import { connectedModelGroups, splitByGroup } from '../core/groups.ts';
import { estimability } from '../core/stats/separation.ts';
import { pairwiseStandings } from '../core/standings.ts';
import type { Game, MatchOutcome, Question, SingleStanding, Standing } from '../core/types.ts';
import { judgeData, singleResults, type JudgeData } from './results.ts';
import { judgeBoard, type BoardRow } from './judge-board.ts';
import { accuracyReport } from './accuracy.ts';
import type { AccuracyRow } from '../core/stats/pair-accuracy.ts';
import { seriesReport, type CheckpointRow } from '../core/stats/checkpoints.ts';
import type { CheckpointRecord, RefreshRecord, RefreshStatus, RunRecord, Store } from '../storage/store.ts';
import { AUTHOR, HUMAN } from '../core/constants.ts';
import { voteToFile, type FileVote } from '../core/sides.ts';

/**
 * Where SiteData keeps what it computed: a value per key, computed once (the site's ResultCache, which drops
 * everything when the data changes).
 */
export interface Memo {
  get<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

export interface Filter {
  turn?: number;
  category?: string;
}

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
  /** best and worst rank consistent with simultaneous 95% intervals of all rating differences */
  rankBest: number | null;
  rankWorst: number | null;
  /** few battles or a wide interval (README: "Rank intervals") */
  preliminary: boolean | null;
}

export interface ConsistencyRow {
  judge: string;
  matches: number;
  consistent: number;
  inconsistent: number;
  error: number;
  consistency: number;
}

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

export interface MatchView {
  question: Question;
  modelA: string;
  modelB: string;
  answers: { model: string; turns: string[] }[];
  references: { source: string; turns: string[] }[];
  games: Game[];
  /** in the API's (and FastChat's) spelling: modelA, modelB, winner model_a | model_b | tie | inconsistent */
  votes: FileVote[];
}

/** Judges excluded from leaderboards: the paper's authors voted on a subset only (kept in agreement). */
const NOT_RANKED = new Set([AUTHOR]);

export class SiteData {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
    private readonly o: { bootstrapRounds: number; intervals?: 'bootstrap' | 'sandwich' },
  ) {}

  judges(): Promise<{ judge: string; games: number; votes: number }[]> {
    return this.cache.get('judges', async () => {
      const js = await this.store.listJudges();
      // the human experts first, then the judges by name
      return js.sort((a, b) => (a.judge === HUMAN ? -1 : b.judge === HUMAN ? 1 : a.judge < b.judge ? -1 : 1));
    });
  }

  async rankedJudges(): Promise<string[]> {
    return (await this.judges()).filter((j) => !NOT_RANKED.has(j.judge)).map((j) => j.judge);
  }

  /** The judge leaderboard (src/reports/judge-board.ts): every judge, with intervals. */
  judgeBoard(): Promise<BoardRow[]> {
    return this.cache.get('judgeBoard', () => judgeBoard(this.store, { rounds: this.o.bootstrapRounds }));
  }

  /** Accuracy of every judge on every labelled pair set (`arena accuracy`). */
  accuracy(): Promise<AccuracyRow[]> {
    return this.cache.get('accuracy', () => accuracyReport(this.store, { rounds: this.o.bootstrapRounds }));
  }

  questions(): Promise<Question[]> {
    return this.cache.get('questions', () => this.store.listQuestions());
  }

  models(): Promise<string[]> {
    return this.cache.get('models', () => this.store.listModels());
  }

  async categories(): Promise<string[]> {
    return [...new Set((await this.questions()).map((q) => q.category))].sort();
  }

  judgeData(judge: string): Promise<JudgeData> {
    return this.cache.get(`judgeData:${judge}`, () => judgeData(this.store, judge));
  }

  private async outcomes(judge: string, f: Filter): Promise<MatchOutcome[]> {
    const { outcomes } = await this.judgeData(judge);
    const qs = f.category
      ? new Set((await this.questions()).filter((q) => q.category === f.category).map((q) => q.id))
      : undefined;
    return outcomes.filter(
      (o) => (f.turn === undefined || o.turn === f.turn) && (!qs || qs.has(o.questionId)),
    );
  }

  /** One judge's leaderboard: FastChat's standings plus Bradley–Terry with a bootstrap interval. */
  leaderboard(judge: string, f: Filter = {}): Promise<LeaderRow[]> {
    return this.cache.get(`leaderboard:${judge}:${f.turn ?? ''}:${f.category ?? ''}`, async () => {
      const all = await this.outcomes(judge, f);
      // tournaments that never met (no model in common) are ranked and rated apart: one group each
      const groups = connectedModelGroups(all);
      const parts = splitByGroup(all, groups);
      return parts.flatMap((outcomes, g) =>
        this.groupRows(outcomes).map((r) => (groups.length > 1 ? { ...r, group: g + 1 } : r)),
      );
    });
  }

  /** FastChat's standings plus Bradley–Terry with a bootstrap interval, for one group of models. */
  private groupRows(outcomes: MatchOutcome[]): LeaderRow[] {
    const rows = pairwiseStandings(outcomes);
    const battles = outcomes
      .filter((o) => o.outcome !== 'error')
      .map(
        (o) =>
          ({
            a: o.model1,
            b: o.model2,
            score: o.outcome === 'model_1' ? 1 : o.outcome === 'model_2' ? 0 : 0.5,
            cluster: o.questionId,
          }) as const,
      );
    // a model that won (or lost) every match has no finite rating: it gets none and a note saying
    // why; the others are fitted without it (core/stats/separation.ts). The sandwich refuses such a
    // table (it rests on one finite fit), so a separated table always takes the bootstrap.
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
      // lmarena's rank: 1 + the models whose interval lies wholly above; overlapping intervals share a rank
      // (Rank (UB), issue 13's `rankUB`); the rank range comes from simultaneous intervals of the differences
      return {
        rank: b?.rank ?? k + 1,
        ...r,
        rating: b?.rating ?? null,
        ratingLo: b?.lo ?? null,
        ratingHi: b?.hi ?? null,
        ratingNote: b?.note ?? null,
        rankUB: b?.rank ?? null,
        rankBest: b?.rankBest ?? null,
        rankWorst: b?.rankWorst ?? null,
        preliminary: b?.preliminary ?? null,
      };
    });
  }

  /**
   * The leaderboard tables: one per judge (or only `only`), and one per group of models that played one another
   * when a judge's models form several (rows carry `group` only then).
   */
  async boards(
    f: Filter,
    only?: string,
  ): Promise<{ judge: string; mode: 'pairwise-all'; rows: LeaderRow[]; group: number; groups: number }[]> {
    const out = [];
    for (const judge of only ? [only] : await this.rankedJudges()) {
      const rows = await this.leaderboard(judge, f);
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
    const boards = [];
    for (const judge of await this.rankedJudges())
      boards.push({ judge, rows: await this.leaderboard(judge) });
    const models = (boards.find((b) => b.judge === HUMAN) ?? boards[0])?.rows.map((r) => r.model) ?? [];
    return { models, boards };
  }

  /** Single-answer grading (MT-Bench's 1–10 score) of every judge that has single games. */
  single(f: Filter = {}): Promise<{ judge: string; rows: SingleStanding[] }[]> {
    return this.cache.get(`single:${f.turn ?? ''}:${f.category ?? ''}`, async () => {
      const out = [];
      for (const j of await this.judges()) {
        if (!j.games) continue;
        const rows = await singleResults(this.store, {
          judge: j.judge,
          ...(f.turn !== undefined ? { turn: f.turn } : {}),
          ...(f.category ? { category: f.category } : {}),
        });
        if (rows.length) out.push({ judge: j.judge, rows });
      }
      return out;
    });
  }

  /** How often a judge's two orders agree (recorded verdicts carry their inconsistent count too). */
  consistency(): Promise<ConsistencyRow[]> {
    return this.cache.get('consistency', async () => {
      const out: ConsistencyRow[] = [];
      for (const judge of await this.rankedJudges()) {
        if (judge === HUMAN) continue;
        const { outcomes } = await this.judgeData(judge);
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
    });
  }

  /**
   * Agreement (S1 with ties, S2 without) per turn of every judge with the human experts and with each
   * other, with Cohen's kappa and its question-bootstrap interval (core/stats/kappa.ts).
   */
  agreement(): Promise<AgreementEntry[]> {
    return this.cache.get('agreement', async () => {
      const judges = (await this.judges()).map((j) => j.judge);
      const out: AgreementEntry[] = [];
      for (let i = 0; i < judges.length; i++)
        for (let j = i; j < judges.length; j++) {
          const j1 = judges[i]!;
          const j2 = judges[j]!;
          const same = j1 === j2;
          // a judge against itself is meaningful only for several voters per item (the humans)
          if (same && j1 !== HUMAN && j1 !== AUTHOR) continue;
          const a = await this.judgeData(j1);
          const comps = comparisons(a.votes, same ? 'same' : (await this.judgeData(j2)).votes);
          for (const r of kappaTable(comps, { same, rounds: this.o.bootstrapRounds })) {
            if (!r.total) continue;
            const { lo, hi, category: _c, questions: _q, nanRounds: _n, note: _t, ...rest } = r;
            out.push({ judge1: j1, judge2: j2, ...rest, kappaLo: lo, kappaHi: hi });
          }
        }
      return out;
    });
  }

  /** Position bias of every judge with games (per-order figures), or with recorded verdicts (conflict rate only). */
  bias(): Promise<BiasEntry[]> {
    return this.cache.get('bias', async () => {
      const out: BiasEntry[] = [];
      for (const judge of await this.rankedJudges()) {
        if (judge === HUMAN) continue;
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
    });
  }

  /** The pairwise win matrix of one judge: every ordered pair of models that met. */
  matrix(judge: string, f: Filter = {}): Promise<{ models: string[]; cells: MatrixCell[] }> {
    return this.cache.get(`matrix:${judge}:${f.turn ?? ''}:${f.category ?? ''}`, async () => {
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
      for (const o of await this.outcomes(judge, f)) {
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
    });
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
    return this.cache.get(`model:${judge}:${model}`, async () => {
      const byCategory = [];
      for (const category of await this.categories()) {
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
    });
  }

  /** Everything about one question and two models: the match browser. */
  match(questionId: number, modelA: string, modelB: string): Promise<MatchView | undefined> {
    return this.cache.get(`match:${questionId}:${modelA}:${modelB}`, async () => {
      const question = (await this.questions()).find((q) => q.id === questionId);
      if (!question) return undefined;
      const answers = (await this.store.listAnswers([modelA, modelB])).filter(
        (a) => a.questionId === questionId,
      );
      const refs = (await this.store.listReferences()).filter((r) => r.questionId === questionId);
      const references = [
        ...(question.reference ? [{ source: 'question', turns: question.reference }] : []),
        ...refs.map((r) => ({ source: r.source, turns: r.turns })),
      ];
      const games = (
        await this.store.listGames({ questionId, models: [modelA, modelB], kind: 'pairwise' })
      ).sort(
        (a, b) =>
          a.judge.localeCompare(b.judge) ||
          a.match.turn - b.match.turn ||
          a.order.localeCompare(b.order) ||
          a.createdAt - b.createdAt,
      );
      const votes: FileVote[] = [];
      for (const j of (await this.judges()).filter((x) => x.votes > 0)) {
        for (const v of await this.cache.get(`votes:${j.judge}`, () => this.store.listVotes(j.judge)))
          if (
            v.questionId === questionId &&
            ((v.model1 === modelA && v.model2 === modelB) || (v.model1 === modelB && v.model2 === modelA))
          )
            votes.push(voteToFile(v));
      }
      return {
        question,
        modelA,
        modelB,
        answers: [modelA, modelB].map((m) => ({
          model: m,
          turns: answers.find((a) => a.model === m)?.turns ?? [],
        })),
        references,
        games,
        votes,
      };
    });
  }

  /** The last refreshes, newest first. */
  refreshes(limit = 30): Promise<RefreshRow[]> {
    return this.cache.get(`refreshes:${limit}`, async () =>
      (await this.store.listRefreshes(limit)).map(refreshRow),
    );
  }

  /**
   * Every checkpoint series with the report of `arena checkpoints report` (core/stats/checkpoints.ts, the same
   * seed and resamples by default) under every judge that judged it, over all its stored games.
   */
  checkpoints(): Promise<CheckpointSeries[]> {
    return this.cache.get('checkpoints', async () => {
      const bySeries = new Map<string, CheckpointRecord[]>();
      for (const c of await this.store.listCheckpoints())
        bySeries.set(c.series, [...(bySeries.get(c.series) ?? []), c]);
      const out: CheckpointSeries[] = [];
      for (const [series, list] of bySeries) {
        const baseline = list.find((c) => c.baseline)?.baseline ?? null;
        const checkpoints = list;
        if (!baseline) {
          out.push({ series, baseline, checkpoints, rows: [], best: {} });
          continue;
        }
        const byJudge = [];
        for (const j of await this.judges())
          byJudge.push({ judge: j.judge, outcomes: (await this.judgeData(j.judge)).outcomes });
        const r = seriesReport(byJudge, list, baseline);
        // judges that never met this series are left out (the CLI lists the judges of its config)
        const judged = new Set(r.rows.filter((x) => x.winRate.n).map((x) => x.judge));
        out.push({
          series,
          baseline,
          checkpoints,
          rows: r.rows.filter((x) => judged.has(x.judge)),
          best: Object.fromEntries(Object.entries(r.best).filter(([j]) => judged.has(j))),
        });
      }
      return out;
    });
  }

  runs(): Promise<(RunRecord & { games: number })[]> {
    return this.cache.get('runs', async () => {
      const runs = await this.store.listRuns();
      return runs.reverse().map((r) => ({ ...r, games: r.played }));
    });
  }
}

export interface RefreshRow {
  id: string;
  startedAt: number;
  finishedAt: number | null;
  status: RefreshStatus;
  /** why it is degraded (or the error of a failed refresh); empty when healthy */
  reasons: string[];
  newModels: string[];
  changedAnswers: number | null;
  /** games judged, judge calls that failed (after retries), games the budget stopped before they started */
  played: number | null;
  failed: number | null;
  skipped: number | null;
  /** judge calls that ended in a game or a failure (played + failed; retries not counted) */
  calls: number | null;
  cost: number;
  estCost: number | null;
  /** the refresh's one-line summary (as printed for the cron log) */
  line: string;
}

export function refreshRow(r: RefreshRecord): RefreshRow {
  const s = r.summary;
  const reasons: unknown = r.degraded ?? [];
  const played = s.played ?? null;
  const failed = s.failed ?? null;
  return {
    id: r.id,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    status: r.status,
    reasons: Array.isArray(reasons) ? reasons.map(String) : [String(reasons)],
    newModels: s.imported?.newModels ?? [],
    changedAnswers: s.imported?.changedAnswers ?? null,
    played,
    failed,
    skipped: s.skipped ?? null,
    calls: played === null || failed === null ? null : played + failed,
    cost: r.cost,
    estCost: s.estCost ?? null,
    line: s.line ?? '',
  };
}

export interface CheckpointSeries {
  series: string;
  /** null: the checkpoints were recorded before their baseline was (rerun `arena checkpoints run`) */
  baseline: string | null;
  checkpoints: (Omit<CheckpointRecord, 'generation'> & { generation: unknown })[];
  /** per judge with games of this series, per checkpoint: as `arena checkpoints report` */
  rows: CheckpointRow[];
  best: Record<string, string>;
}

/** A checkpoint report row flattened for the JSON/CSV table. */
export function checkpointTableRow(series: string, baseline: string | null, r: CheckpointRow) {
  return {
    series,
    baseline,
    judge: r.judge,
    checkpoint: r.checkpoint,
    step: r.step,
    model: r.model,
    n: r.winRate.n,
    winRate: r.winRate.n ? r.winRate.mean : null,
    winRateLo: r.winRate.n ? r.winRate.lo : null,
    winRateHi: r.winRate.n ? r.winRate.hi : null,
    previous: r.vsPrevious?.against ?? null,
    vsPrevious: r.vsPrevious?.n ? r.vsPrevious.mean : null,
    vsPreviousLo: r.vsPrevious?.n ? r.vsPrevious.lo : null,
    vsPreviousHi: r.vsPrevious?.n ? r.vsPrevious.hi : null,
    bestSoFar: r.vsBest?.against ?? null,
    vsBest: r.vsBest?.n ? r.vsBest.mean : null,
    vsBestLo: r.vsBest?.n ? r.vsBest.lo : null,
    vsBestHi: r.vsBest?.n ? r.vsBest.hi : null,
    best: r.best,
  };
}

function strip(r: LeaderRow): Standing {
  const {
    rank: _r,
    rating: _a,
    ratingLo: _b,
    ratingHi: _c,
    ratingNote: _d,
    rankUB: _u,
    rankBest: _rb,
    rankWorst: _rw,
    preliminary: _p,
    ...s
  } = r;
  return s;
}
