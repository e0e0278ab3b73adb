// The boards' story from the refreshes' records: which judge produced each board and since when, which is retired
// or a candidate successor, and every succession's bridge report (src/ops/refresh/succession.ts writes them). Pure.
import type { RefreshRecord, SuccessionRecord } from '../../core/records.ts';

export interface BoardNote {
  /** current: the board is this judge's since `since`, after `other`; retired: since `since`, succeeded by `other`;
   * candidate: its bridge from `other` showed rankings too far apart, so `other`'s board stays the default */
  state: 'current' | 'retired' | 'candidate';
  since: number;
  other: string;
  why: string;
}

export interface BoardStory {
  /** newest first */
  successions: SuccessionRecord[];
  notes: Record<string, BoardNote>;
  /** the judge the newest refresh's config names for the home page (`publish.judge`), if any */
  named?: string;
}

/** The judge a refresh's config names for the home page (`publish.judge`), else undefined. */
function namedJudge(r: RefreshRecord): string | undefined {
  const j = (r.config?.config as { publish?: { judge?: unknown } } | null | undefined)?.publish?.judge;
  return typeof j === 'string' && j ? j : undefined;
}

/** The story told by `records` (any order): later successions override earlier ones. */
export function boardStory(records: RefreshRecord[]): BoardStory {
  const all = records
    .flatMap((r) => r.summary?.succession ?? [])
    .filter((s) => s && typeof s.from === 'string' && typeof s.to === 'string')
    .sort((a, b) => a.at - b.at);
  const notes: Record<string, BoardNote> = {};
  for (const s of all) {
    if (s.switched) {
      notes[s.to] = { state: 'current', since: s.at, other: s.from, why: s.why };
      notes[s.from] = { state: 'retired', since: s.at, other: s.to, why: s.why };
    } else notes[s.to] = { state: 'candidate', since: s.at, other: s.from, why: s.why };
  }
  const newest = [...records].sort((a, b) => b.startedAt - a.startedAt)[0];
  const named = newest && namedJudge(newest);
  return { successions: all.reverse(), notes, ...(named ? { named } : {}) };
}

/** Boards in the order a reader needs them: the current judges' first, retired ones last, else as given. */
export function storyOrder<T extends { judge: string }>(tables: T[], notes: Record<string, BoardNote>): T[] {
  const rank = (j: string) => (notes[j]?.state === 'current' ? 0 : notes[j]?.state === 'retired' ? 2 : 1);
  return [...tables].sort((a, b) => rank(a.judge) - rank(b.judge)); // a stable sort: ties as given
}
