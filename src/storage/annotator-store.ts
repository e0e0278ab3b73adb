// The annotators' group of the Store: invites, what each annotator was shown and what they answered.
import type { AnnotationChoice, Choice, ShownOrder } from '../core/annotate.ts';

/** A person invited to vote on /annotate. */
export interface AnnotatorRecord {
  id: number;
  name: string;
  createdAt: number;
  /** when the invite was redeemed; null while unused */
  usedAt: number | null;
  /** when revoked; null while active */
  revokedAt: number | null;
}

/** A match shown to one annotator, the side shown first, and the answer once given. */
export interface AnnotationRecord {
  id: number;
  annotatorId: number;
  questionId: number;
  turn: number;
  model1: string;
  model2: string;
  order: ShownOrder;
  shownAt: number;
  /** null while pending */
  choice: AnnotationChoice | null;
  reason: string | null;
  answeredAt: number | null;
}

/** The match an annotation is about. */
export interface AnnotationMatch {
  questionId: number;
  turn: number;
  model1: string;
  model2: string;
}

/** Annotators, their invites, and what they were shown and answered; their votes land in the votes table. */
export interface AnnotatorStore {
  /**
   * Invite `name` with the SHA-256 of a new token: a new name gets a fresh id, a used or revoked one is invited
   * again under its id, its old session ended. An error when the name's invite is still unused.
   */
  add(name: string, tokenHash: string, at: number): Promise<AnnotatorRecord & { again: boolean }>;
  /** by name */
  list(): Promise<AnnotatorRecord[]>;
  get(id: number): Promise<AnnotatorRecord | undefined>;
  /** revoke by name (its session ends at once); false when no active annotator has the name */
  revoke(name: string, at: number): Promise<boolean>;
  /**
   * Redeem an invite, in one statement: the annotator whose unused, unrevoked invite has this hash, now marked
   * used and holding the session it opens (none: only marked used); undefined otherwise.
   */
  redeem(tokenHash: string, at: number, sessionHash?: string): Promise<AnnotatorRecord | undefined>;
  /** the active annotator whose session this is (ended by logout, revocation or a new invite: undefined) */
  session(annotatorId: number, sessionHash: string): Promise<AnnotatorRecord | undefined>;
  /** end the session on the server: a copy of its cookie is refused from now on */
  endSession(annotatorId: number, sessionHash: string): Promise<void>;
  /** every match shown to the annotator (answered, skipped or pending), oldest first */
  shown(annotatorId: number): Promise<AnnotationRecord[]>;
  /** record that the match is shown with `order`; the row already there when it was shown before */
  show(annotatorId: number, match: AnnotationMatch, order: ShownOrder, at: number): Promise<AnnotationRecord>;
  annotation(id: number): Promise<AnnotationRecord | undefined>;
  /**
   * Answer a pending annotation, all or nothing: the choice and reason and, unless skipped, one vote of judge
   * `annotators`. False, nothing written, when answered before or the voter already has a vote on the match.
   */
  answer(a: {
    annotation: AnnotationRecord;
    choice: Choice | 'skip';
    reason: string | null;
    at: number;
  }): Promise<boolean>;
  /** the answered annotations of every annotator (skips left out), oldest first: the export */
  answered(): Promise<AnnotationRecord[]>;
  /**
   * Take in what a site recorded (invites redeemed, matches shown and answered, votes cast), all or nothing,
   * keeping what this database holds; refused, nothing written, when the site contradicts it.
   */
  mergeSite(site: SiteAnnotate): Promise<MergedSite>;
}

/** A site's annotate state, as `arena publish` reads it from D1. */
export interface SiteAnnotate {
  annotators: { id: number; name: string; usedAt: number | null }[];
  annotations: AnnotationRecord[];
  /** the votes the site's annotators cast (judge `annotators`, source `annotate`) */
  votes: SiteVote[];
}

/** A vote an annotator cast on a site, as the votes table holds it (FastChat's spelling of the winner). */
export interface SiteVote {
  voter: string;
  questionId: number;
  turn: number;
  modelA: string;
  modelB: string;
  winner: 'model_a' | 'model_b' | 'tie' | 'inconsistent';
  /** the vote's number among the site's votes (the votes table's line of source `annotate`) */
  line: number;
}

/** What mergeSite added: invites newly marked used, annotations added, answers taken in, votes added. */
export interface MergedSite {
  redeemed: number;
  annotations: number;
  answers: number;
  votes: number;
}

/** Request counters shared by every process or isolate on the database (the annotate pages' rate limits). */
export interface RateLimitStore {
  /**
   * Count one request of `key` at `now` in a fixed window of `windowMs` from the key's first request, in one
   * statement: the requests in the window, this one included, and when it ends. Ended windows are deleted.
   */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}
