// Votes in the shape of the Hugging Face dataset lmsys/mt_bench_human_judgments, which `arena import` reads back.
// Annotators' votes keep "tie (bothbad)" apart from a plain tie, as the experts' split does.
import { annotatorVoter, winnerOf } from '../core/annotate.ts';
import { ANNOTATORS } from '../core/constants.ts';
import { WINNER_TO_FILE } from '../core/sides.ts';
import type { Answer, Question, VoteWinner } from '../core/types.ts';
import type { Store } from '../storage/store.ts';

const fileWinner = (w: VoteWinner): string =>
  w === 'inconsistent' ? 'tie (inconsistent)' : WINNER_TO_FILE[w];

/** Every vote of `judge` as one HF row each, in the order they were cast. */
export async function exportVotes(store: Store, judge: string) {
  const questions = new Map<number, Question>((await store.catalog.questions()).map((q) => [q.id, q]));
  const answers = new Map<string, Answer>(
    (await store.catalog.answers()).map((a) => [`${a.model}\u0000${a.questionId}`, a]),
  );
  // the whole conversation, both turns, as the dataset carries it
  const conversation = (model: string, q: number) => {
    const turns = questions.get(q)?.turns ?? [];
    const replies = answers.get(`${model}\u0000${q}`)?.turns ?? [];
    return turns.flatMap((content, k) => [
      { role: 'user' as const, content },
      { role: 'assistant' as const, content: replies[k] ?? '' },
    ]);
  };
  const row = (q: number, turn: number, a: string, b: string, winner: string, voter: string) => ({
    question_id: q,
    model_a: a,
    model_b: b,
    winner,
    judge: voter,
    conversation_a: conversation(a, q),
    conversation_b: conversation(b, q),
    turn,
  });
  const votes = (await store.votes.list(judge)).map((v) =>
    row(v.questionId, v.turn, v.model1, v.model2, fileWinner(v.winner), v.voter),
  );
  if (judge !== ANNOTATORS) return votes;
  // the votes cast here from their annotations (a both-bad vote stays one), then those imported, each once
  const cast = (await store.annotators.answered()).map((n) =>
    row(
      n.questionId,
      n.turn,
      n.model1,
      n.model2,
      n.choice === 'bothbad' ? 'tie (bothbad)' : fileWinner(winnerOf(n.choice as 'A' | 'B' | 'tie', n.order)),
      annotatorVoter(n.annotatorId),
    ),
  );
  const key = (r: ReturnType<typeof row>) =>
    JSON.stringify([r.judge, r.question_id, r.turn, r.model_a, r.model_b]);
  const here = new Set(cast.map(key));
  return [...cast, ...votes.filter((r) => !here.has(key(r)))];
}
