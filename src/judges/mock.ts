import { ArenaError } from '../core/types.ts';
import { unknownValueMessage } from '../core/suggest.ts';
import type { JudgeProvider, JudgeReply, JudgeRequest } from './judge.ts';

/**
 * `mock/<behaviour>`: an offline judge for tests and dry runs. Deterministic: the same prompt gets the same reply;
 * a single-answer grading prompt gets a rating from a hash of the prompt, whatever the behaviour. The behaviours'
 * pairwise replies, the one list that the error for an unknown one and docs/judges.md (checked by a test) show.
 */
export const MOCK_BEHAVIOURS = {
  random: 'a verdict drawn from a hash of the prompt: A, B or a tie',
  a: 'always `[[A]]`',
  b: 'always `[[B]]`',
  tie: 'always `[[C]]` (a tie)',
  longer: 'prefers the longer answer (a tie when they are as long)',
  unparsable: 'never gives a verdict (every game fails to parse)',
  // FastChat's precedence parser reads every such reply as A; the `last` parser reads the final verdict
  quoting: "quotes `[[A]]`, `[[B]]` and `[[C]]`, then gives `random`'s verdict: FastChat's parser reads A",
} as const;

export function mockJudge(name: string): JudgeProvider {
  if (!Object.hasOwn(MOCK_BEHAVIOURS, name))
    throw new ArenaError(
      `[judge:mock] ${unknownValueMessage('behaviour', name, Object.keys(MOCK_BEHAVIOURS))}`,
    );
  return {
    id: `mock/${name}`,
    async complete(req: JudgeRequest): Promise<JudgeReply> {
      // like a real provider, an aborted signal stops the call (checked again after yielding once)
      req.signal?.throwIfAborted();
      await null;
      req.signal?.throwIfAborted();
      const single = /\[\[rating\]\]/.test(req.system + req.user);
      const text = single
        ? `Mock evaluation. Rating: [[${1 + (hash(req.user) % 10)}]]`
        : `Mock evaluation (${name}). ${pairVerdict(name, req.user)}`;
      return {
        text,
        tokensIn: Math.ceil((req.system.length + req.user.length) / 4),
        tokensOut: Math.ceil(text.length / 4),
      };
    },
  };
}

/** The fixed replies of the behaviours that have one. */
const FIXED: Record<string, string> = {
  a: '[[A]]',
  b: '[[B]]',
  tie: '[[C]]',
  unparsable: 'Both answers have merit.',
};

function pairVerdict(name: string, user: string): string {
  if (FIXED[name]) return FIXED[name];
  if (name === 'quoting')
    return `I will answer in the required format: "[[A]]" if assistant A is better, "[[B]]" if assistant B is better, and "[[C]]" for a tie. Having compared both answers, my final verdict is: ${pairVerdict('random', user)}`;
  if (name === 'longer') {
    const a = section(user, 'A');
    const b = section(user, 'B');
    return a.length === b.length ? '[[C]]' : a.length > b.length ? '[[A]]' : '[[B]]';
  }
  return ['[[A]]', '[[B]]', '[[C]]'][hash(user) % 3]!;
}

/** The text between "Assistant X's Answer/Conversation" start and end markers. */
function section(user: string, x: 'A' | 'B'): string {
  const m = user.match(new RegExp(`Start of Assistant ${x}'s[^\\n]*\\n([\\s\\S]*?)End of Assistant ${x}'s`));
  return m?.[1] ?? '';
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
