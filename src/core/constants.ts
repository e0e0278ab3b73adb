// The names mt-arena gives meaning to, in one place: judges that are not models calling an API, and the
// defaults the MT-Bench protocol fixes. Code compares against these, never against the literals.

/** The judge of MT-Bench's expert votes (voters expert_*): the truth other judges are compared with. */
export const HUMAN = 'human';
/** The judge of the paper authors' own votes (voters author_*): a subset only, never ranked or assessed. */
export const AUTHOR = 'author';
/**
 * What the judges that are people's votes are, in a line each, wherever a list names them (`arena judges`, docs):
 * a reader meeting `author` beside `gpt-4` must not take it for a model judging.
 */
export const PEOPLE_JUDGE_NOTES: Readonly<Record<string, string>> = {
  [HUMAN]: "MT-Bench's expert votes (voters expert_*): the reference other judges are compared with",
  [AUTHOR]:
    "the MT-Bench paper authors' own votes (voters author_*) on part of the questions: never ranked or assessed as a judge (as in FastChat); juries and successions show agreement with them beside the experts'",
};
/** MT-Bench's GPT-4 judge: its recorded pairwise verdicts (voter gpt4_pair) are stored under this name. */
export const REFERENCE_JUDGE = 'gpt-4';
/** Where reference answers for math, reasoning and coding come from (FastChat: reference_answer/gpt-4.jsonl). */
export const DEFAULT_REFERENCE_SOURCE = 'gpt-4';
/** The baseline model of pairwise-baseline mode (FastChat's default). */
export const DEFAULT_BASELINE = 'gpt-3.5-turbo';
/** Review labels (arena review import) are stored as votes of this judge. */
export const REVIEW_JUDGE = 'review';
/** Games of the calibrated scheme are stored under the judge's id with this suffix, apart from its plain games. */
export const FAIR_SUFFIX = '+fair';
/** The judge whose votes are a labelled pair set's gold labels (arena import pairs). */
export const GOLD = 'gold';
/** The two outputs of a labelled pair, as models (arena import pairs). */
export const OUTPUT_1 = 'output_1';
export const OUTPUT_2 = 'output_2';
/** The source of drift-canary games (src/ops): re-judged anchors, excluded from results by default. */
export const CANARY_SOURCE = 'canary';
/** The judge of the votes a team's own annotators cast on /annotate (voters annotator_<id>, as FastChat's expert_*). */
export const ANNOTATORS = 'annotators';

/** Judges whose votes come from several people, each vote its own (the experts, the authors, the annotators). */
export const isHumanJudge = (judge: string): boolean => judge === HUMAN || judge === ANNOTATORS;

/**
 * Output tokens a judgment is estimated at before a judge has stored any (then its own replies' mean is used):
 * the mean length of GPT-4's 150 pairwise MT-Bench judgments in FastChat's own output (`format_samples`, 731.8
 * characters at 4 characters per token). Only estimates use it; a budget reserves max_tokens for calls in flight.
 */
export const TYPICAL_JUDGMENT_TOKENS = 183;

/**
 * How a failed call's recorded error begins when a reasoning model spent its whole max_completion_tokens on hidden
 * reasoning (an empty reply, paid for): such a game is never sent again with the same settings (its identity).
 */
export const ALLOWANCE_TAG = '[judge:openai] reasoning used the whole allowance';
