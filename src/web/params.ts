// Query parameters of every page and endpoint: their shape (zod schemas; a malformed value, or an unknown parameter
// of an endpoint, is a 400; a page ignores unknown ones, as shared links carry utm_*), then their meaning against the
// data (`lookups`: an unknown judge, category, model, question or series is a 404 listing the valid values).
import { AUTHOR, REFERENCE_JUDGE } from '../core/constants.ts';
import { zValidator } from '@hono/zod-validator';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import type { Filter } from '../reports/site/catalog.ts';
import type { CheckpointSeries } from '../reports/site/checkpoints.ts';
import type { MatchView } from '../reports/site/matches.ts';
import type { SiteData } from '../reports/site/site-data.ts';
import type { ResultCache } from './result-cache.ts';
import { SORT_KEYS } from './sort.ts';

/** What a wrong value is told: given twice (hono hands a repeated parameter over as an array), or not `expected`. */
const wrong = (expected: string) => (i: { input: unknown }) =>
  Array.isArray(i.input) ? 'given more than once' : `expected ${expected}, got "${String(i.input)}"`;
/** One value of a query parameter. */
const one = (expected = 'a value') => z.string({ error: wrong(expected) });
/** A value from a fixed list, `expected` says which. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, expected: string) =>
  z.enum(values, { error: wrong(expected) });
/** A free text: its meaning is checked against the data later. */
const text = one().optional();

/** turn=1|2|both (or empty: both) as a number, or undefined for both turns pooled */
const turn = oneOf(['1', '2', 'both', ''], '1, 2 or both')
  .optional()
  .transform((t) => (t === '1' || t === '2' ? Number(t) : undefined));
const size = oneOf(['narrow'], 'narrow')
  .optional()
  .transform((s) => s === 'narrow');
const questionId = one('a question id').regex(/^(0|[1-9]\d{0,8})$/, { error: 'expected a question id' });

const FILTER = { judge: text, turn, category: text } as const;
/** the leaderboard's model search (a substring of the name) and sort order */
const LEADERBOARD = {
  ...FILTER,
  q: one('a search text of at most 100 characters')
    .max(100, { error: 'expected a search text of at most 100 characters' })
    .optional()
    .transform((v) => v?.trim() || undefined),
  sort: oneOf(SORT_KEYS, SORT_KEYS.join(', ')).optional(),
  dir: oneOf(['asc', 'desc'], 'asc or desc').optional(),
} as const;
const MATCH = { question: questionId.transform(Number), a: text, b: text } as const;

/** The schemas: each route's own (pages and charts), and each /api table's. */
export const QUERY = {
  none: z.strictObject({}),
  filter: z.strictObject(FILTER),
  /** the details page (/leaderboard): the filter, a model search and the tables' sort order */
  leaderboard: z.strictObject(LEADERBOARD),
  judge: z.strictObject({ judge: text }),
  model: z.strictObject({ judge: text, model: text }),
  filterNoJudge: z.strictObject({ turn: FILTER.turn, category: text }),
  match: z.strictObject(MATCH),
  /** the match browser: nothing picked yet, or a question and two models */
  matches: z.strictObject({
    ...MATCH,
    question: MATCH.question.optional(),
    /** texts as written (the default) or rendered as Markdown */
    view: oneOf(['markdown'], 'markdown').optional(),
  }),
  limit: z.strictObject({
    limit: one('a number from 1 to 1000')
      .refine((v) => v === '' || (/^[1-9]\d{0,3}$/.test(v) && Number(v) <= 1000), {
        error: (i) => `expected a number from 1 to 1000, got "${String(i.input)}"`,
      })
      .optional()
      .transform((v) => (v ? Number(v) : 30)),
  }),
  series: z.strictObject({ series: text }),
  seriesChart: z.strictObject({ series: text, size }),
  filterChart: z.strictObject({ ...FILTER, size }),
  /** the leaderboard's chart: one table's, so one group's when the judge's models form several */
  ratingsChart: z.strictObject({
    ...FILTER,
    group: one('a group number')
      .regex(/^[1-9]\d{0,3}$/, { error: (i) => `expected a group number, got "${String(i.input)}"` })
      .transform(Number)
      .optional(),
    size,
  }),
  size: z.strictObject({ size }),
  modelChart: z.strictObject({ judge: text, model: text, size }),
  standings: z.strictObject({
    judge: text,
    mode: oneOf(['pairwise-all', 'pairwise-baseline'], 'pairwise-all or pairwise-baseline').optional(),
    turn: oneOf(['1', '2'], '1 or 2')
      .optional()
      .transform((t) => (t ? Number(t) : undefined)),
    baseline: text,
  }),
} as const;

export type QuerySchema = (typeof QUERY)[keyof typeof QUERY];

/** One type with the members of every type of the union `U`. */
type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (m: infer M) => void ? M : never;

/** Every parameter any route reads, as its validated value (a route's own schema decides which are present). */
export type Query = Partial<Merged<z.output<QuerySchema>>>;

/** The validated query of this request (the route's validator ran first). */
export const query = (c: Context): Query => c.req.valid('query' as never) as Query;

/** The names a schema takes, in its order (the order of the cache key). */
const paramNames = (s: QuerySchema): string[] => Object.keys(s.shape);

/** A page's query check: as validQuery, but a parameter the page does not read (utm_*) is ignored, not refused. */
export function validPage(schema: QuerySchema): MiddlewareHandler {
  const check = validQuery(z.object(schema.shape) as unknown as QuerySchema);
  return (c, next) =>
    check(c, async () => {
      canonical.set(c.req.raw, c.req.path + canonicalQuery(c, schema));
      await next();
    });
}

const canonical = new WeakMap<Request, string>();

/** The canonical path and query of a page (its path alone where no page check ran: error pages). */
export const canonicalPath = (c: Context): string => canonical.get(c.req.raw) ?? c.req.path;

/** The canonical query of this request: its validated parameters in the schema's order, but those at default. */
function canonicalQuery(c: Context, schema: QuerySchema): string {
  const q = query(c) as Record<string, unknown>;
  const shape = schema.shape as Record<string, z.ZodType>;
  const p = new URLSearchParams();
  for (const k of paramNames(schema)) {
    const v = q[k];
    if (v === undefined || v === '' || v === false) continue;
    const byDefault = shape[k]!.safeParse(undefined);
    if (byDefault.success && byDefault.data === v) continue;
    p.append(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** hono middleware: the request's query checked against `schema`; a failure is a 400 with a message a person can act on. */
export function validQuery(schema: QuerySchema): MiddlewareHandler {
  const names = paramNames(schema);
  const takes = names.length ? names.map((k) => `"${k}"`).join(', ') : 'none';
  return zValidator('query', schema, (r, c) => {
    if (r.success) return;
    const unknown = r.error.issues.find((i) => i.code === 'unrecognized_keys');
    if (unknown)
      throw new HTTPException(400, {
        message: `unknown query parameter "${unknown.keys[0]}" (${c.req.path} takes ${takes})`,
      });
    const issue = r.error.issues[0]!;
    throw new HTTPException(400, { message: `query parameter "${String(issue.path[0])}": ${issue.message}` });
  });
}

/** The data-dependent checks: names that must exist in the database (404 otherwise, listing what exists). */
export function lookups(data: SiteData, cache: ResultCache) {
  const { catalog, leaderboards } = data;
  const allModels = () =>
    cache.get('allModels', async () => {
      const [models, judges] = await Promise.all([catalog.models(), catalog.rankedJudges()]);
      const set = new Set(models);
      for (const rows of await Promise.all(judges.map((j) => leaderboards.leaderboard(j))))
        for (const r of rows) set.add(r.model);
      return [...set].sort();
    });

  const l = {
    /** every model: with answers, or only in recorded verdicts; sorted */
    models: allModels,
    /** ?judge= (default: gpt-4 when there is one, else the first judge; `fallback: false` makes it required) */
    async judge(q: Query, fallback = true): Promise<string> {
      const judges = await catalog.rankedJudges();
      const j = q.judge;
      if (j === undefined || j === '') {
        const first = judges.includes(REFERENCE_JUDGE) ? REFERENCE_JUDGE : judges[0];
        if (fallback && first) return first;
        throw new HTTPException(400, { message: 'query parameter "judge" is required' });
      }
      if (!judges.includes(j)) {
        // a judge with games or votes whose reports the Worker has not had published yet (the first annotator votes)
        const known = j !== AUTHOR && (await catalog.judges()).some((x) => x.judge === j);
        throw new HTTPException(404, {
          message: known
            ? `judge "${j}" has no leaderboard here yet: its reports are built at the next \`arena publish\` (judges: ${judges.join(', ') || 'none'})`
            : `no judge named "${j}" (judges: ${judges.join(', ') || 'none'})`,
        });
      }
      return j;
    },
    /** ?turn=&category= */
    async filter(q: Query): Promise<Filter> {
      const f: Filter = {};
      if (q.turn !== undefined) f.turn = q.turn;
      if (q.category) {
        const cats = await catalog.categories();
        if (!cats.includes(q.category))
          throw new HTTPException(404, {
            message: `no category named "${q.category}" (categories: ${cats.join(', ')})`,
          });
        f.category = q.category;
      }
      return f;
    },
    /** a model parameter (or the path's model): required, and known */
    async model(name: string, value: string | undefined): Promise<string> {
      if (!value) throw new HTTPException(400, { message: `query parameter "${name}" is required` });
      if (!(await allModels()).includes(value))
        throw new HTTPException(404, { message: `no model named "${value}"` });
      return value;
    },
    /** ?question=&a=&b=: everything about one question and two models */
    async match(q: Query): Promise<MatchView> {
      if (q.question === undefined)
        throw new HTTPException(400, { message: 'query parameter "question": expected a question id' });
      const a = await l.model('a', q.a);
      const b = await l.model('b', q.b);
      const m = await data.matches.match(q.question, a, b);
      if (!m) throw new HTTPException(404, { message: `no question ${q.question}` });
      return m;
    },
    /** All checkpoint series, or the one named by ?series= (404 when there is none of that name). */
    async series(q: Query): Promise<CheckpointSeries[]> {
      const all = await data.checkpoints.series();
      if (q.series === undefined || q.series === '') return all;
      const one = all.filter((x) => x.series === q.series);
      if (!one.length)
        throw new HTTPException(404, {
          message: `no checkpoint series named "${q.series}" (series: ${all.map((x) => x.series).join(', ') || 'none'})`,
        });
      return one;
    },
  };
  return l;
}

export type Lookups = ReturnType<typeof lookups>;
