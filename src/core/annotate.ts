// The annotator's vote, in the vocabulary of the votes table: what the blind page showed (which model was A)
// and what the annotator chose, mapped back to the match's models.
import { ANNOTATORS } from './constants.ts';
import { portableSha256Hex } from './sha256.ts';
import type { VoteWinner } from './types.ts';

/** What an annotator may answer: the answer shown as A, as B, a tie, both bad (a tie), or skip (no vote). */
export const CHOICES = ['A', 'B', 'tie', 'bothbad'] as const;
export type Choice = (typeof CHOICES)[number];
export type AnnotationChoice = Choice | 'skip';

/** AB: model_1 was shown as A; BA: model_2 was. */
export type ShownOrder = 'AB' | 'BA';

/** The vote's winner for the match's models. */
export function winnerOf(choice: Choice, order: ShownOrder): VoteWinner {
  if (choice === 'tie' || choice === 'bothbad') return 'tie';
  return (choice === 'A') === (order === 'AB') ? 'model_1' : 'model_2';
}

/** The voter name of an annotator's votes (FastChat keeps its experts as expert_<n>). */
export const annotatorVoter = (id: number): string => `annotator_${id}`;

/** The judge and voter a recorded voter name belongs to, for annotator_<n>; undefined for any other. */
export const annotatorOfVoter = (voter: string): { judge: string; voter: string } | undefined =>
  /^annotator_\d+$/.test(voter) ? { judge: ANNOTATORS, voter } : undefined;

/** An annotator's name: what `arena annotators add` accepts (shown in lists, never to visitors). */
export const ANNOTATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** What is stored of an invite token: its hex SHA-256 (the same function on Node and Workers). */
export const inviteHash = (token: string): string => portableSha256Hex(token);

/** What is stored of a session's id: its hex SHA-256, as of an invite token. */
export const sessionHash = inviteHash;

/** The login address an invite token opens, under the site's address (`''`: a path). */
export const inviteLink = (siteUrl: string, token: string): string =>
  `${siteUrl.replace(/\/+$/, '')}/annotate/login?token=${encodeURIComponent(token)}`;
