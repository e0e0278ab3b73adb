// The human-in-the-loop queue: the matches a judge is least sure about (highest balanced-position
// diversity entropy) go to people; their labels replace the judge's, and the report shows the gain.
import { cohensKappa } from './kappa.ts';
import { ArenaError } from '../types.ts';

export const DEFAULT_BETA = 0.2;

/**
 * The top `beta` share (rounded up) of items by entropy, highest first. Items without a verdict
 * (no valid sample) come first: they need a person most. Ties in entropy keep the input order.
 */
export function selectForReview<T extends { entropy: number; verdict: string }>(
  items: T[],
  beta = DEFAULT_BETA,
): T[] {
  if (!(beta >= 0 && beta <= 1)) throw new ArenaError(`[review] beta must lie in [0, 1], got ${beta}`);
  const ranked = items
    .map((it, k) => ({ it, k }))
    .sort(
      (a, b) =>
        Number(b.it.verdict === 'error') - Number(a.it.verdict === 'error') ||
        b.it.entropy - a.it.entropy ||
        a.k - b.k,
    )
    .map((x) => x.it);
  return ranked.slice(0, Math.ceil(beta * items.length));
}

type HumanLabel = 'model_1' | 'model_2' | 'tie';

export interface ReviewLabel {
  questionId: number;
  turn: number;
  model1: string;
  model2: string;
  label: HumanLabel;
  /** who labelled it (default "reviewer") */
  voter: string;
  line: number;
}

/**
 * Labels from an exported review file (JSONL, `label` filled in by a person); unlabelled lines are counted, anything
 * malformed is an error naming the file, the line and the field.
 */
export function parseReviewLabels(file: string, text: string): { labels: ReviewLabel[]; unlabelled: number } {
  const labels: ReviewLabel[] = [];
  let unlabelled = 0;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, k) => {
    const line = k + 1;
    if (!raw.trim()) return;
    const fail = (field: string | undefined, msg: string): never => {
      throw new ArenaError(`${file}:${line}:${field ? ` field "${field}":` : ''} ${msg}`, {
        file,
        line,
        ...(field ? { field } : {}),
      });
    };
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      return fail(undefined, `malformed JSON (${(e as Error).message})`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(undefined, 'expected a JSON object');
    const int = (f: string) =>
      Number.isInteger(v[f]) && (v[f] as number) > 0
        ? (v[f] as number)
        : fail(f, `expected a positive integer, got ${JSON.stringify(v[f])}`);
    const str = (f: string) =>
      typeof v[f] === 'string' && v[f]
        ? (v[f] as string)
        : fail(f, `expected a model name, got ${JSON.stringify(v[f])}`);
    const questionId = int('questionId');
    const turn = int('turn');
    const model1 = str('model1');
    const model2 = str('model2');
    if (v.label === null || v.label === undefined || v.label === '') {
      unlabelled++;
      return;
    }
    if (v.label !== 'model_1' && v.label !== 'model_2' && v.label !== 'tie')
      fail('label', `expected "model_1", "model_2", "tie" or null, got ${JSON.stringify(v.label)}`);
    const voter =
      v.voter === undefined
        ? 'reviewer'
        : typeof v.voter === 'string' && v.voter
          ? v.voter
          : fail('voter', `expected a name, got ${JSON.stringify(v.voter)}`);
    labels.push({ questionId, turn, model1, model2, label: v.label as HumanLabel, voter, line });
  });
  return { labels, unlabelled };
}

export interface LabelComparison {
  /** compared (judge label, human vote) pairs */
  n: number;
  accuracy: number | null;
  kappa: number | null;
}

/** Accuracy and Cohen's kappa of judge labels against human labels (an unparsed judge verdict is its own label, never right). */
export function compareLabels(pairs: [string, string][]): LabelComparison {
  if (!pairs.length) return { n: 0, accuracy: null, kappa: null };
  const agree = pairs.filter(([a, b]) => a === b).length;
  const k = cohensKappa(pairs);
  return { n: pairs.length, accuracy: agree / pairs.length, kappa: Number.isNaN(k) ? null : k };
}
