// Verdicts, one concept per file:
// - parse.ts: the `[[A]]` / `[[n]]` parsers (`last`, FastChat's `fastchat`, the study's `lenient`) and their versions
// - lenient.ts: the "Judge Llama 2" study's ladder of verdict marks
// - of-reply.ts: verdictOf, the one reading of a judge's reply into the verdict a game stores
// - stored.ts: Game.verdict (a pairwise Verdict or a score as text), checked where it enters and narrowed on read
// Combining a match's two games into its outcome is core/outcomes.ts.
export * from './parse.ts';
export * from './lenient.ts';
export * from './of-reply.ts';
export * from './stored.ts';
