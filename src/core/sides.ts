// The sides of a match as file formats spell them, translated in one place. Inside, a side is 'model_1' or
// 'model_2' (core/types.ts Side); FastChat's human-judgment files (mt_bench_human_judgments: CSV, JSON, JSONL)
// and the votes table of our database spell a vote's winner model_a / model_b. Only the edges use these:
// importers/formats.ts reading votes, the store reading and writing its votes table, the site's match API.
import type { Vote, VoteWinner } from './types.ts';

/** A vote's winner as FastChat's vote files and our votes table write it. */
export type FileWinner = 'model_a' | 'model_b' | 'tie' | 'inconsistent';

export const WINNER_TO_FILE: Readonly<Record<VoteWinner, FileWinner>> = {
  model_1: 'model_a',
  model_2: 'model_b',
  tie: 'tie',
  inconsistent: 'inconsistent',
};
export const WINNER_FROM_FILE: Readonly<Record<FileWinner, VoteWinner>> = {
  model_a: 'model_1',
  model_b: 'model_2',
  tie: 'tie',
  inconsistent: 'inconsistent',
};

/** A vote in the votes table's and the site API's shape (modelA, modelB, winner model_a | model_b | ...). */
export interface FileVote extends Omit<Vote, 'model1' | 'model2' | 'winner'> {
  modelA: string;
  modelB: string;
  winner: FileWinner;
}

export function voteToFile({ model1, model2, winner, ...rest }: Vote): FileVote {
  return {
    judge: rest.judge,
    voter: rest.voter,
    questionId: rest.questionId,
    turn: rest.turn,
    modelA: model1,
    modelB: model2,
    winner: WINNER_TO_FILE[winner],
  };
}
