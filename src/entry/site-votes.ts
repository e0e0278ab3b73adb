// What a D1 site recorded on /annotate (annotations, votes, invites redeemed), read back through `wrangler d1
// execute --json` before `arena publish` writes over it; every row is checked before the Store takes it in.
import { z } from 'zod';
import { ANNOTATOR_NAME } from '../core/annotate.ts';
import { ANNOTATORS } from '../core/constants.ts';
import { ArenaError } from '../core/types.ts';
import type { MergedSite, SiteAnnotate } from '../storage/annotator-store.ts';
import type { Store } from '../storage/store.ts';
import type { D1Target } from './publish.ts';
import { d1Execute } from './wrangler.ts';

/** Rows per `wrangler d1 execute` (a page of at most ~2,000 annotations of 2,000-character reasons: ~5 MB). */
const PAGE = 2000;
/** The most one wrangler call may print (anything longer is refused, not read). */
const MAX_OUTPUT = 32 * 1024 * 1024;

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const time = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const text = (max: number) => z.string().max(max);
const model = text(1000);

const annotatorRow = z
  .object({ id, name: z.string().regex(ANNOTATOR_NAME), usedAt: time.nullable() })
  .strict();
const annotationRow = z
  .object({
    id,
    annotatorId: id,
    questionId: z.number().int(),
    turn: z.number().int().min(1).max(100),
    model1: model,
    model2: model,
    order: z.enum(['AB', 'BA']),
    shownAt: time,
    choice: z.enum(['A', 'B', 'tie', 'bothbad', 'skip']).nullable(),
    reason: text(2000).nullable(),
    answeredAt: time.nullable(),
  })
  .strict();
const voteRow = z
  .object({
    id,
    judge: z.literal(ANNOTATORS),
    voter: text(100),
    questionId: z.number().int(),
    turn: z.number().int().min(1).max(100),
    modelA: model,
    modelB: model,
    winner: z.enum(['model_a', 'model_b', 'tie', 'inconsistent']),
    line: id,
  })
  .strict();

/** Each table's read, its columns named as the Store names them (SiteAnnotate). */
const QUERIES = {
  annotators: { columns: 'id, name, used_at AS usedAt', where: '', row: annotatorRow },
  annotations: {
    columns:
      'id, annotator_id AS annotatorId, question_id AS questionId, turn, model_1 AS model1, model_2 AS model2, ' +
      '"order", shown_at AS shownAt, choice, reason, answered_at AS answeredAt',
    where: '',
    row: annotationRow,
  },
  votes: {
    columns:
      'id, judge, voter, question_id AS questionId, turn, model_a AS modelA, model_b AS modelB, winner, line',
    where: "source = 'annotate' AND ",
    row: voteRow,
  },
} as const;

/** `wrangler d1 execute --json --command` of the statements: the rows of each, in order. */
async function execute(t: D1Target, statements: string[], log: (m: string) => void): Promise<unknown[][]> {
  const r = await d1Execute(
    t,
    ['--json', '--command', statements.join(';\n')],
    { capture: true, maxBuffer: MAX_OUTPUT },
    { log },
  );
  const why = r.error
    ? r.error.message
    : r.status !== 0
      ? `exit ${r.status ?? r.signal}: ${`${r.stdout}\n${r.stderr}`.trim().slice(-1500)}`
      : undefined;
  if (why)
    throw new ArenaError(
      `[publish] could not read the site's votes from D1 ${t.database} (wrangler d1 execute, ${why}); the D1 database needs this version's migrations (wrangler d1 migrations apply)`,
    );
  let out: unknown;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new ArenaError(`[publish] wrangler d1 execute --json printed no JSON: ${r.stdout.slice(0, 300)}`);
  }
  const results = z
    .array(z.object({ results: z.array(z.unknown()) }).passthrough())
    .length(statements.length)
    .safeParse(out);
  if (!results.success)
    throw new ArenaError(
      `[publish] wrangler d1 execute --json answered an unexpected shape: ${r.stdout.slice(0, 300)}`,
    );
  return results.data.map((x) => x.results);
}

type Table = keyof typeof QUERIES;
type Row<K extends Table> = z.infer<(typeof QUERIES)[K]['row']>;
type Rows = { [K in Table]: Row<K>[] };

/** Every row of the site's tables, a page of each at a time by id (one wrangler call per page), each checked. */
async function readAll(t: D1Target, log: (m: string) => void): Promise<Rows> {
  const out: Rows = { annotators: [], annotations: [], votes: [] };
  let open = Object.keys(QUERIES) as Table[];
  while (open.length) {
    const after = (k: Table) => out[k][out[k].length - 1]?.id ?? 0;
    const pages = await execute(
      t,
      open.map((k) => {
        const q = QUERIES[k];
        return `SELECT ${q.columns} FROM ${k} WHERE ${q.where}id > ${after(k)} ORDER BY id LIMIT ${PAGE}`;
      }),
      log,
    );
    open = open.filter((k, i) => {
      const rows = pages[i]!;
      for (const [n, raw] of rows.entries()) {
        const row = QUERIES[k].row.safeParse(raw);
        if (!row.success) {
          const issue = row.error.issues[0]!;
          throw new ArenaError(
            `[publish] D1 ${t.database}: ${k} row ${out[k].length + n + 1} (id ${String((raw as { id?: unknown }).id)}): ${issue.path.join('.') || 'row'}: ${issue.message}; nothing was taken in`,
          );
        }
        (out[k] as unknown[]).push(row.data);
      }
      return rows.length === PAGE;
    });
  }
  return out;
}

/** Take the site's votes into `store` before it is published over them; what was taken in. */
export async function pullSiteVotes(
  store: Store,
  t: D1Target,
  log: (m: string) => void = () => {},
): Promise<MergedSite> {
  const { annotators, annotations, votes } = await readAll(t, log);
  // a vote's id and judge are D1's own: this database numbers its votes, all of judge `annotators`
  const site: SiteAnnotate = {
    annotators,
    annotations,
    votes: votes.map(({ id: _id, judge: _judge, ...v }) => v),
  };
  const m = await store.annotators.mergeSite(site);
  log(
    `from D1 ${t.database}: ${m.votes} new votes, ${m.answers + m.annotations} annotations, ${m.redeemed} invites used`,
  );
  return m;
}
