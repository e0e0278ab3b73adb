// The checkpoints page's data, and its report flattened into the rows of /api/checkpoints.
import { seriesReport, type CheckpointRow } from '../../core/stats/checkpoints.ts';
import type { CheckpointRecord, Store } from '../../storage/store.ts';
import type { Catalog, Memo } from './catalog.ts';
import { allReads } from './reads.ts';

export interface CheckpointSeries {
  series: string;
  /** null: the checkpoints were recorded before their baseline was (rerun `arena checkpoints run`) */
  baseline: string | null;
  checkpoints: (Omit<CheckpointRecord, 'generation'> & { generation: unknown })[];
  /** per judge with games of this series, per checkpoint: as `arena checkpoints report` */
  rows: CheckpointRow[];
  best: Record<string, string>;
  /** judges whose top win rate is tied (no best named): the checkpoints that share it */
  tiedBest: Record<string, string[]>;
}

export class Checkpoints {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
    private readonly catalog: Catalog,
  ) {}

  /** Every checkpoint series with the report of `arena checkpoints report` under every judge that judged it. */
  series(): Promise<CheckpointSeries[]> {
    return this.cache.get(
      'checkpoints',
      async () => {
        const bySeries = new Map<string, CheckpointRecord[]>();
        for (const c of await this.store.checkpoints.list())
          bySeries.set(c.series, [...(bySeries.get(c.series) ?? []), c]);
        const out: CheckpointSeries[] = [];
        for (const [series, checkpoints] of bySeries) {
          const baseline = checkpoints.find((c) => c.baseline)?.baseline ?? null;
          if (!baseline) {
            out.push({ series, baseline, checkpoints, rows: [], best: {}, tiedBest: {} });
            continue;
          }
          const byJudge = [];
          for (const j of await this.catalog.judges())
            byJudge.push({ judge: j.judge, outcomes: (await this.catalog.judgeData(j.judge)).outcomes });
          const r = seriesReport(byJudge, checkpoints, baseline);
          // judges that never met this series are left out (the CLI lists the judges of its config)
          const judged = new Set(r.rows.filter((x) => x.winRate.n).map((x) => x.judge));
          out.push({
            series,
            baseline,
            checkpoints,
            rows: r.rows.filter((x) => judged.has(x.judge)),
            best: Object.fromEntries(Object.entries(r.best).filter(([j]) => judged.has(j))),
            tiedBest: Object.fromEntries(Object.entries(r.tiedBest).filter(([j]) => judged.has(j))),
          });
        }
        return out;
      },
      allReads('checkpoints'),
    );
  }
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
