// What each stored report reads, declared where it is computed (the third argument of Memo.get): the games and
// votes of one judge or of every judge, and the tables besides (DIGEST_TABLES). A report's stored row is current
// while the digest of exactly what it declares is unchanged (src/reports/site/stored.ts), so a declaration must
// cover every Store read its computation makes, its nested reports' included: tests/reports/reads.test.ts records
// the reads of every report a build makes and fails on one not declared.
import type { ReportReads } from '../../storage/report-store.ts';

type Table = ReportReads['tables'][number];

/** One judge's games and votes, and these tables. */
export const judgeReads = (judge: string, ...tables: Table[]): ReportReads => ({ judges: [judge], tables });

/** Every judge's games and votes (the list of judges included), and these tables. */
export const allReads = (...tables: Table[]): ReportReads => ({ judges: 'all', tables });

/** The questions when a filter names a category (its questions are looked up), else nothing. */
export const categoryReads = (f: { category?: string | undefined }): Table[] =>
  f.category ? ['questions'] : [];
