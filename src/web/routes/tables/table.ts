// What an /api table is: served at /api/<name> (JSON) and /api/<name>.csv; its columns fix the shape of both.
import type { Query, QuerySchema } from '../../params.ts';

interface Table {
  /** the query parameters it reads (any other is a 400) */
  query: QuerySchema;
  /** the parameters it cannot answer without (a request missing one is a 400 saying what is needed) */
  needs?: { params: readonly string[]; example: string };
  columns: readonly string[];
  describe: string;
  rows(q: Query): Promise<object[]>;
}

/** A family of tables by name (one file each under src/web/routes/tables/). */
export type Tables = Record<string, Table>;
