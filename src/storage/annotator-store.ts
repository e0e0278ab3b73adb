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
  /** a new annotator with the SHA-256 of its invite token; an error when the name is taken */
  add(name: string, tokenHash: string, at: number): Promise<AnnotatorRecord>;
  /** by name */
  list(): Promise<AnnotatorRecord[]>;
  get(id: number): Promise<AnnotatorRecord | undefined>;
  /** revoke by name (sessions stop at once); false when no active annotator has the name */
  revoke(name: string, at: number): Promise<boolean>;
  /**
   * Redeem an invite, in one statement: the annotator whose unused invite has this hash and who is not revoked,
   * now marked used; undefined for an unknown, used or revoked invite.
   */
  redeem(tokenHash: string, at: number): Promise<AnnotatorRecord | undefined>;
  /** every match shown to the annotator (answered, skipped or pending), oldest first */
  shown(annotatorId: number): Promise<AnnotationRecord[]>;
  /** record that the match is shown with `order`; the row already there when it was shown before */
  show(annotatorId: number, match: AnnotationMatch, order: ShownOrder, at: number): Promise<AnnotationRecord>;
  annotation(id: number): Promise<AnnotationRecord | undefined>;
  /**
   * Answer a pending annotation, all or nothing: the choice and reason recorded and, unless skipped, one vote of
   * judge `annotators` (voter annotator_<id>). False when it was answered before (a second answer counts nothing).
   */
  answer(a: {
    annotation: AnnotationRecord;
    choice: Choice | 'skip';
    reason: string | null;
    at: number;
  }): Promise<boolean>;
  /** the answered annotations of every annotator (skips left out), oldest first: the export */
  answered(): Promise<AnnotationRecord[]>;
}
