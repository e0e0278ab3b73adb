import { defineCommand } from 'citty';
import { dbArg, print, printJson, jsonArg, withStore } from '../shared.ts';
import { int, oneOf } from '../format.ts';
import { reportsLine, storePages } from '../reports.ts';

export const reportsCommand = defineCommand({
  meta: {
    name: 'reports',
    description:
      'the stored reports the site shows (computed when the games change); --rebuild recomputes those whose data changed',
  },
  args: {
    ...dbArg,
    rebuild: { type: 'boolean', description: 'recompute every report whose data changed, with progress' },
    intervals: {
      type: 'string',
      default: 'bootstrap',
      description: 'rating intervals: bootstrap | sandwich (the site reads the reports of its own setting)',
    },
    rounds: { type: 'string', default: '1000', description: 'bootstrap rounds' },
    ...jsonArg,
  },
  async run({ args }) {
    const intervals = oneOf(args.intervals, 'intervals', ['bootstrap', 'sandwich'] as const);
    const rounds = int(args.rounds, 'rounds')!;
    if (args.rebuild) {
      const { buildReports } = await import('../../reports/site/build.ts');
      const { r, pages } = await withStore(args.db, {}, async (store) => {
        const r = await buildReports(store, {
          bootstrapRounds: rounds,
          ...(intervals === 'sandwich' ? { intervals } : {}),
          progress: (step, k, n) => process.stderr.write(`reports ${k}/${n}: ${step}\n`),
        });
        // and the pages, rendered from the reports just built (src/web/pages.ts)
        return { r, pages: await storePages(store) };
      });
      return args.json ? printJson({ ...r, pages }) : print(`${reportsLine(r)}; pages: ${pages} rendered`);
    }
    const rows = await withStore(args.db, { readonly: true }, (store) => store.reports.index());
    if (args.json) return printJson(rows);
    const views = new Map<string, { n: number; ms: number }>();
    for (const r of rows) {
      const v = views.get(r.view);
      views.set(r.view, { n: (v?.n ?? 0) + 1, ms: (v?.ms ?? 0) + r.ms });
    }
    print(
      rows.length
        ? [...views]
            .map(([v, x]) => `${v}: ${x.n} report(s), computed in ${(x.ms / 1000).toFixed(1)} s`)
            .join('\n')
        : 'no stored reports (arena reports --rebuild builds them)',
    );
  },
});
