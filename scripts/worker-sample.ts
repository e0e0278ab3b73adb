// Records the Worker warm-up's sample (src/entry/worker-sample.json): what the D1 of a published database answers
// when every kind of page the home page links to is asked of the Worker's app. The Worker replays it at start-up
// (src/entry/worker-warm.ts) to run each page's code once before its first visitor, with no I/O and no report
// computed (the rows are stored reports as `arena publish` ships them).
//   node --import tsx scripts/worker-sample.ts --db arena.db [--out src/entry/worker-sample.json]
// arena.db: a database with its reports built (the one `npm start` creates, or any after `arena reports
// --rebuild`). Run it again when a report's shape changes (REPORT_VERSION): tests/entry/worker-warm.test.ts fails
// while the sample is stale. What it keeps is cut down to a few rows per table (SAMPLE_LIMITS below).
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { format } from 'prettier';
import type { AnyD1Database } from 'drizzle-orm/d1';
import { openD1Store } from '../src/storage/d1.ts';
import { createApp } from '../src/web/app.ts';
import { NAV } from '../src/web/site.ts';
import { sampleD1, type WorkerSample } from '../src/entry/worker-warm.ts';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const file = arg('db', '');
if (!file)
  throw new Error('usage: scripts/worker-sample.ts --db arena.db [--out src/entry/worker-sample.json]');
const out = arg('out', new URL('../src/entry/worker-sample.json', import.meta.url).pathname);

const sqlite = new Database(file, { readonly: true });
/** every statement the app ran, with its parameters and D1's rows */
const reads: WorkerSample['reads'] = [];
const known = new Set<string>();

/** A D1 binding over the SQLite file that records each statement's answer (only reads are asked). */
function recording(): AnyD1Database {
  const statement = (sql: string, params: unknown[] = []) => {
    const rows = () => {
      const r = sqlite.prepare(sql).all(...(params as never[])) as Record<string, unknown>[];
      const key = JSON.stringify([sql, params]);
      if (!known.has(key)) {
        known.add(key);
        reads.push([sql, params, r]);
      }
      return r;
    };
    return {
      bind: (...p: unknown[]) => statement(sql, p),
      all: async () => ({ results: rows(), success: true, meta: {} }),
      raw: async () => rows().map((r) => Object.values(r)),
      first: async () => rows()[0] ?? null,
      run: async () => ({ results: [], success: true, meta: {} }),
    };
  };
  return {
    prepare: (sql: string) => statement(sql),
    batch: async (s: { all(): Promise<unknown> }[]) => Promise.all(s.map((x) => x.all())),
  } as unknown as AnyD1Database;
}

const app = createApp({ store: openD1Store(recording()), reports: 'read' });
const ask = async (path: string) => {
  const r = await app.fetch(new Request(`http://sample.invalid${path}`));
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${path}: ${r.status} from ${file} (are its reports built?)`);
  return text;
};
// every page of the navigation, the details page the home page links to (/leaderboard), and the first model
// page `/models` links to
const paths: string[] = [];
for (const [path] of [...NAV, ['/leaderboard']]) {
  paths.push(path);
  const html = await ask(path);
  if (path !== '/models') continue;
  const model = /href="(\/models\/[^"#]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  if (!model) throw new Error(`/models links to no model page in ${file}`);
  await ask(model);
  paths.push(model);
}
// and one API table, of the judge the model page names
const api = `/api/standings?judge=${/judge=([^&"]+)/.exec(paths.join(' '))?.[1] ?? 'gpt-4'}`;
await ask(api);
paths.push(api);
sqlite.close();

// the questions cut to the first of each category (a page needs their kinds, not all 80 texts)
for (const read of reads) {
  const rows = read[2];
  if (!rows.length || !('turns' in rows[0]!) || !('category' in rows[0]!)) continue;
  const seen = new Set<unknown>();
  // and their texts replaced: the sample is recorded from a database of the MT-Bench release, whose texts are
  // not ours to ship; the pages' code runs the same on any text
  read[2] = rows
    .filter((r) => !seen.has(r.category) && seen.add(r.category))
    .map((r) => ({
      ...r,
      turns: JSON.stringify(
        (JSON.parse(String(r.turns)) as unknown[]).map((_, i) => `Sample turn ${i + 1}.`),
      ),
      reference: r.reference == null ? null : JSON.stringify(['Sample reference.']),
    }));
}
const sample: WorkerSample = { paths, reads };
// the sample as the Worker replays it must answer every page as the database did
const replay = createApp({ store: openD1Store(sampleD1(sample)), reports: 'read' });
for (const path of paths) {
  const r = await replay.fetch(new Request(`http://sample.invalid${path}`));
  if (r.status !== 200) throw new Error(`${path}: ${r.status} from the cut sample: ${await r.text()}`);
}
const json = await format(JSON.stringify(sample), { parser: 'json', printWidth: 110 });
writeFileSync(out, json);
console.error(`worker sample: ${paths.length} paths, ${reads.length} reads, ${json.length} bytes -> ${out}`);
