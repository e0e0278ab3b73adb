// The verdict after the explanation: a GBNF grammar allows exactly `[[A]]`, `[[B]]` or `[[C]]` (`[[n]]` with
// n in 1..10 for single grading), and the probability the model gave each verdict letter is read off the
// logits at the verdict position (summed over every token whose text is that letter, byte-fallback tokens
// included).
import type {
  LlamaContextSequence,
  LlamaGrammar,
  LlamaGrammarEvaluationState,
  LlamaModel,
  Token,
} from 'node-llama-cpp';
import { vocabulary } from './reliability.ts';
import { alignFull } from './scheduler.ts';

/** tokens kept free after the explanation for `\n[[X]]` */
export const VERDICT_RESERVE = 8;
export const PAIR_GRAMMAR = 'root ::= [ABC] "]]"';
export const RATING_GRAMMAR = 'root ::= ("10" | [1-9]) "]]"';

/** How the explanation ended: end of generation, a verdict opener "[[", a stop string, or the token budget. */
export type ExplanationCut = 'eog' | 'verdict' | 'stop' | 'budget';

/** The tokens that can start a pairwise verdict after "[[": text "A", "A]" or "A]]" (and B, C), by token. */
export interface LetterTokens {
  tokens: Token[];
  letter: Map<Token, string>;
}

export function letterTokens(model: LlamaModel): LetterTokens {
  const n = vocabulary(model).length;
  // detokenized after "[[" so that a leading-space token reads " A", not "A"
  const before = model.tokenize('[[', false, 'trimLeadingSpace');
  const letter = new Map<Token, string>();
  for (let t = 0; t < n; t++) {
    const text = model.detokenize([t as Token], false, before);
    if (/^[ABC]\]{0,2}$/.test(text)) letter.set(t as Token, text.charAt(0));
  }
  return { tokens: [...letter.keys()], letter };
}

/** The token with the highest logit (the first on a tie). */
function argmax(logits: Map<Token, number>): Token {
  let best: Token | undefined;
  let max = -Infinity;
  for (const [t, v] of logits) if (v > max) [best, max] = [t, v];
  return best!;
}

/**
 * The probability of each verdict letter: the softmax of the allowed tokens' logits (the grammar-constrained
 * distribution), summed by token text so that "A" and its byte-fallback token <0x41> add up; sums to 1.
 */
function letterProbs(L: LetterTokens, logits: Map<Token, number> | undefined): Record<string, number> {
  const sum: Record<string, number> = { A: 0, B: 0, C: 0 };
  if (!logits?.size) throw new Error('no logits for the verdict tokens');
  const max = Math.max(...logits.values());
  for (const [t, v] of logits) {
    const c = L.letter.get(t);
    if (c) sum[c]! += Math.exp(v - max);
  }
  const total = sum.A! + sum.B! + sum.C!;
  return { A: sum.A! / total, B: sum.B! / total, C: sum.C! / total };
}

/** What the verdict step needs of the loaded model. */
export interface VerdictModel {
  model: LlamaModel;
  pairGrammar: LlamaGrammar;
  ratingGrammar: LlamaGrammar;
  letters: LetterTokens;
  GrammarState: typeof LlamaGrammarEvaluationState;
}

export interface VerdictInput {
  prompt: Token[];
  /** the explanation's tokens as generated */
  generated: Token[];
  /** the explanation's text (cut before a stop string) */
  text: string;
  cut: ExplanationCut;
  rating: boolean;
  sampling: { temperature: number; seed: number };
}

export interface GeneratedVerdict {
  /** the explanation kept before the verdict */
  explanation: string;
  /** its tokens, the opener's and the verdict's: the reply's tokens out */
  tokensOut: number;
  verdictTokens: Token[];
  /** the reply's tokens after the prompt: the explanation kept, the opener and the verdict */
  replyTokens: Token[];
  probs?: Record<string, number>;
}

/** The verdict, constrained by the grammar: keeps the explanation's tokens before any "[[" or stop text. */
export async function generateVerdict(
  V: VerdictModel,
  s: LlamaContextSequence,
  v: VerdictInput,
): Promise<GeneratedVerdict> {
  const { model } = V;
  const { prompt, generated, text } = v;
  let keep = generated.length;
  const limit = v.cut === 'verdict' ? text.indexOf('[[') : text.length;
  while (
    keep > 0 &&
    (model.detokenize(generated.slice(0, keep)).length > limit ||
      /\[$/.test(model.detokenize(generated.slice(0, keep))))
  )
    keep--;
  const explanation = model.detokenize(generated.slice(0, keep));
  const opener = model.tokenize(explanation.trim() ? '\n[[' : '[[', false, 'trimLeadingSpace');
  const target = [...prompt, ...generated.slice(0, keep), ...opener];
  const grammarState = new V.GrammarState({ model, grammar: v.rating ? V.ratingGrammar : V.pairGrammar });
  const verdictTokens: Token[] = [];
  let probs: Record<string, number> | undefined;
  let pending = await alignFull(s, target);
  if (!v.rating) {
    // the probabilities: raw logits of every token the grammar allows first (the letter alone, or with
    // "]" / "]]" attached, byte-fallback tokens included), read at the verdict position
    const last = pending.at(-1)!;
    const out = await s.controlledEvaluate([
      ...pending.slice(0, -1),
      [last, { generateNext: { logits: { filter: { tokens: V.letters.tokens } } } }],
    ]);
    const logits = out.at(-1)?.next.logits;
    probs = letterProbs(V.letters, logits);
    if (v.sampling.temperature > 0) {
      // evaluate the last token again, now sampling through the grammar
      await s.eraseContextTokenRanges([{ start: s.nextTokenIndex - 1, end: s.nextTokenIndex }]);
      pending = [last];
    } else {
      // greedy through the grammar is the allowed token with the highest logit: read it off, no second pass
      verdictTokens.push(argmax(logits!));
      pending = [];
    }
  }
  if (pending.length)
    for await (const t of s.evaluate(pending, { ...v.sampling, grammarEvaluationState: grammarState })) {
      verdictTokens.push(t);
      // the letter decides a pairwise verdict: its "]]" is written, not generated (the game ends here)
      if (
        !v.rating ||
        model.detokenize(verdictTokens).endsWith(']]') ||
        verdictTokens.length >= VERDICT_RESERVE
      )
        break;
    }
  return {
    explanation,
    tokensOut: keep + opener.length + verdictTokens.length,
    verdictTokens,
    replyTokens: [...generated.slice(0, keep), ...opener, ...verdictTokens],
    probs,
  };
}

/** The reply's text: the explanation and the verdict, which must be one the grammar allows (else `fail`). */
export function verdictText(
  model: LlamaModel,
  g: GeneratedVerdict,
  rating: boolean,
  fail: (m: string) => Error,
) {
  let verdict = model.detokenize(g.verdictTokens);
  if (!rating && /^[ABC]\]{0,2}$/.test(verdict)) verdict = `${verdict.charAt(0)}]]`;
  if (!/^(?:[ABC]|10|[1-9])\]\]$/.test(verdict)) throw fail(`the verdict grammar produced "${verdict}"`);
  return `${g.explanation.trimEnd()}${g.explanation.trim() ? '\n' : ''}[[${verdict}`;
}
