// What the analytics commands share: figure spellings, the calibration gap table, the prior option.
import type { GapRow } from '../../core/stats/calibration.ts';
import { num, table } from '../format.ts';
import * as figures from '../../core/format.ts';

export const pct = figures.pct;
export const fix = (x: number, d = 1) => (Number.isNaN(x) ? '' : Number(x.toFixed(d)));

export const gapTable = (rows: GapRow[]) =>
  table(
    rows.map((g) => ({
      gap: `[${g.from}, ${g.to === Infinity ? '∞' : g.to})`,
      matches: g.matches,
      conflicts: g.conflicts,
      conflict: pct(g.conflict),
    })),
  );

export const priorArg = {
  prior: {
    type: 'string',
    default: '0',
    description:
      'Bradley–Terry prior: tie pseudo-games added to every pair of models that met (0: none; 1 keeps a 10–0 record finite)',
  },
} as const;

/** --prior (in range by the one schema of numeric options, cli/validate.ts), 0 when not given. */
export const priorOption = (v: string | undefined): number => num(v, 'prior') ?? 0;
