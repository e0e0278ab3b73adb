// What each stored report reads, declared where it is computed (Memo.get's third argument): its row is current while
// the digest of exactly that is unchanged, so a declaration covers every Store read (tests/reports/reads.test.ts).
import type { ReportReads } from '../../storage/report-store.ts';

type Table = ReportReads['tables'][number];

/** One judge's games and votes, and these tables. */
export const judgeReads = (judge: string, ...tables: Table[]): ReportReads => ({ judges: [judge], tables });

/** Every judge's games and votes (the list of judges included), and these tables. */
export const allReads = (...tables: Table[]): ReportReads => ({ judges: 'all', tables });

/** The questions when a filter names a category (its questions are looked up), else nothing. */
export const categoryReads = (f: { category?: string | undefined }): Table[] =>
  f.category ? ['questions'] : [];
