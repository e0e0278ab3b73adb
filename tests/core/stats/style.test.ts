// Style control against tests/reference/style_bt.py (own feature extraction, scipy), on the release and on
// synthetic answers using every markdown element; plus what style control must do.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { normal, seededRng } from '../../../src/core/stats/random.ts';
import {
  addCounts,
  MIN_FEATURE_SUPPORT,
  styleControl,
  styleCounts,
  type StyleBattle,
  type StyleFeature,
} from '../../../src/core/stats/style.ts';
import { arenaJson, runArena, tmpDir } from '../../support/cli.ts';
import { readCsv, scoreOfA } from '../../support/materials.ts';
import { mtbenchReleaseDb } from '../../support/mtbench-release.ts';
import { python, pythonSkip } from '../../support/python.ts';

const DIR = process.env.MTBENCH_DIR;
const noPython = pythonSkip;
if (!DIR) console.warn('[style] MT-Bench comparisons skipped: MTBENCH_DIR is not set (../shared/mt_bench)');

type Answers = Record<string, Record<string, string[]>>;
type PyBattle = [qid: number, turn: number, a: string, b: string, y: number];
interface PyResult {
  ratings: Record<string, number>;
  coefficients: Record<string, number>;
  se: Record<string, number>;
  /** --intervals sandwich: rating ± t(Q − 1) · se (centred on all models), plain BT the same, coefficients */
  sandwich: {
    t: number;
    ratings: Record<string, [number, number]>;
    raw: Record<string, [number, number]>;
    coefficients: Record<string, [number, number]>;
  };
  constant: string[];
  not_estimable: string[];
}

/** The reference's answers by their input: two tests ask for the same fit (gpt-4's battles), which runs once. */
const references = new Map<string, PyResult>();

function styleReference(
  answers: Answers,
  battles: PyBattle[],
  elements: string[],
  reg = 0.5,
  minSupport: Record<string, number> | null = null,
): PyResult {
  const input = { answers, battles, elements, reg, min_support: minSupport };
  const key = JSON.stringify(input);
  let ref = references.get(key);
  if (!ref) references.set(key, (ref = python<PyResult>('style_bt.py', input, 180_000)));
  return structuredClone(ref);
}

const ELEMENTS: Record<string, StyleFeature[]> = {
  length: ['length'],
  markdown: ['headers', 'lists', 'bold'],
};

describe('style features', () => {
  it('counts headers, list items and bold outside fenced code blocks; length counts everything', () => {
    const text = [
      '# Title',
      '## Part',
      '#nospace',
      'Some **bold** and __also__ and ** not',
      '1. one',
      '  2. two',
      '- a',
      '* b',
      '+ c',
      '```',
      '# not a header',
      '- not a list',
      '**not bold**',
      '```',
      'end',
    ].join('\n');
    expect(styleCounts(text)).toEqual({ length: text.length, headers: 2, lists: 5, bold: 2 });
    expect(addCounts([styleCounts('**a**'), styleCounts('- x')])).toEqual({
      length: 8,
      headers: 0,
      lists: 1,
      bold: 1,
    });
  });

  it('removes an advantage that comes only from length, and finds the length coefficient', () => {
    // "verbose" is as good as "terse" but its answers are longer and this judge likes length
    const rng = seededRng(5);
    const Q = 600;
    const battles: StyleBattle[] = [];
    for (let q = 0; q < Q; q++)
      for (const [a, b] of [
        ['verbose', 'terse'],
        ['verbose', 'mid'],
        ['terse', 'mid'],
      ] as const) {
        const len = { verbose: 1800, terse: 600, mid: 1000 };
        const la = len[a] * Math.exp(0.8 * normal(rng));
        const lb = len[b] * Math.exp(0.8 * normal(rng));
        const x = (la - lb) / (la + lb + 1);
        const y = rng() < 1 / (1 + Math.exp(-4 * x)) ? 1 : 0;
        battles.push({
          a,
          b,
          score: y,
          cluster: q,
          styleA: { length: la, headers: 0, lists: 0, bold: 0 },
          styleB: { length: lb, headers: 0, lists: 0, bold: 0 },
        });
      }
    const r = styleControl(battles, ['length', 'markdown'], { rounds: 100 });
    expect(r.constant).toEqual(['headers', 'lists', 'bold']);
    expect(r.features[0]!.feature).toBe('length');
    expect(r.features[0]!.lo).toBeGreaterThan(0);
    const by = Object.fromEntries(r.rows.map((x) => [x.model, x]));
    // raw Bradley–Terry puts verbose far ahead; controlled for length the three are within their intervals of one another
    expect(by.verbose!.rawRating - by.terse!.rawRating).toBeGreaterThan(150);
    expect(Math.abs(by.verbose!.rating - by.terse!.rating)).toBeLessThan(40);
    expect([by.verbose!.rawRank, by.mid!.rawRank, by.terse!.rawRank]).toEqual([1, 2, 3]);
    expect([by.verbose!.rank, by.mid!.rank, by.terse!.rank]).toEqual([1, 1, 1]);
  });
});

describe.skipIf(!!noPython)('style control equals an independent Python computation', () => {
  it('synthetic answers that use headers, lists, bold and code blocks (all four features)', () => {
    const rng = seededRng(11);
    const models = ['plain', 'listy', 'boldy', 'fancy'];
    const answers: Answers = {};
    const piece = (m: string, q: number, t: number) => {
      const parts = [`Answer ${q}.${t} by ${m}.`, 'x'.repeat(Math.floor(200 + 400 * rng()))];
      if (m === 'listy' || m === 'fancy' || rng() < 0.2)
        for (let k = 0; k < 1 + Math.floor(4 * rng()); k++) parts.push(`${k + 1}. item`);
      if (m === 'boldy' || m === 'fancy' || rng() < 0.2)
        parts.push('**key** point', rng() < 0.5 ? '__also__' : '');
      if (m === 'fancy' || rng() < 0.1) parts.unshift('## Heading');
      if (rng() < 0.3) parts.push('```\n# code\n- code\n**code**\n```');
      return parts.join('\n');
    };
    for (const m of models) {
      answers[m] = {};
      for (let q = 0; q < 30; q++) answers[m]![String(q)] = [piece(m, q, 1), piece(m, q, 2)];
    }
    const battles: PyBattle[] = [];
    for (let q = 0; q < 30; q++)
      for (let i = 0; i < models.length; i++)
        for (let j = i + 1; j < models.length; j++)
          for (const turn of [1, 2]) {
            const u = rng();
            battles.push([q, turn, models[i]!, models[j]!, u < 0.45 ? 1 : u < 0.6 ? 0.5 : 0]);
          }
    const ref = styleReference(answers, battles, ['length', 'headers', 'lists', 'bold']);
    const style = (m: string, q: number, t: number) =>
      addCounts(answers[m]![String(q)]!.slice(0, t).map(styleCounts));
    const ours = styleControl(
      battles.map(([q, t, a, b, y]) => ({
        a,
        b,
        score: y as 0 | 0.5 | 1,
        cluster: q,
        styleA: style(a, q, t),
        styleB: style(b, q, t),
      })),
      ['length', 'markdown'],
      { rounds: 20 },
    );
    expect(ours.constant).toEqual(ref.constant);
    expect(ours.features.map((f) => f.feature)).toEqual(['length', 'headers', 'lists', 'bold']);
    expect(ours.notEstimableFeatures).toEqual([]);
    for (const f of ours.features) {
      expect(Math.abs(f.coefficient - ref.coefficients[f.feature]!), f.feature).toBeLessThan(1e-5);
      // the question-clustered sandwich standard error
      expect(Math.abs(f.se - ref.se[f.feature]!), f.feature).toBeLessThan(1e-5);
    }
    for (const r of ours.rows) expect(Math.abs(r.rating - ref.ratings[r.model]!), r.model).toBeLessThan(1e-3);
  });

  describe.skipIf(!DIR)('on the MT-Bench release', () => {
    const dir = DIR ?? '';
    const db = join(tmpDir('arena-style-'), 'release.db');
    const answers: Answers = {};
    const csv = (file: string, keep: (r: Record<string, string>) => boolean): PyBattle[] =>
      readCsv(join(dir, 'human_judgments', file))
        .filter(keep)
        .map((r) => [Number(r.question_id), Number(r.turn), r.model_a!, r.model_b!, scoreOfA(r)]);
    beforeAll(async () => {
      for (const f of readdirSync(join(dir, 'model_answer')).filter((x) => x.endsWith('.jsonl'))) {
        const model = f.replace(/\.jsonl$/, '');
        answers[model] = {};
        for (const line of readFileSync(join(dir, 'model_answer', f), 'utf8')
          .split('\n')
          .filter(Boolean)) {
          const a = JSON.parse(line) as { question_id: number; choices: { turns: string[] }[] };
          answers[model]![String(a.question_id)] = a.choices[0]!.turns;
        }
      }
      await mtbenchReleaseDb(db, dir);
    }, 180_000);

    for (const [judge, file, keep, groups] of [
      [
        'gpt-4',
        'mt_bench_gpt4_pair.csv',
        (r: Record<string, string>) => r.judge === 'gpt4_pair',
        ['length', 'markdown'],
      ],
      [
        'human',
        'mt_bench_human.csv',
        (r: Record<string, string>) => r.judge!.startsWith('expert'),
        ['length', 'markdown'],
      ],
    ] as const) {
      it(`${judge}: ratings and coefficients of \`arena ratings --style ${groups.join(',')}\``, async () => {
        const ref = styleReference(
          answers,
          csv(file, keep),
          groups.flatMap((g) => ELEMENTS[g]!),
          0.5,
          { ...MIN_FEATURE_SUPPORT },
        );
        const ours = await arenaJson<{
          features: { feature: string; coefficient: number; se: number; lo: number; hi: number }[];
          constant: string[];
          notEstimableFeatures: { feature: string; reason: string; support: { answers: number } }[];
          rows: { model: string; rating: number; rawRating: number }[];
          battles: number;
        }>(['ratings', '--db', db, '--judge', judge, '--style', groups.join(','), '--rounds', '50']);
        expect(ours.constant).toEqual(ref.constant);
        expect(ours.features.map((f) => f.feature).sort()).toEqual(Object.keys(ref.coefficients).sort());
        for (const f of ours.features) {
          expect(Math.abs(f.coefficient - ref.coefficients[f.feature]!), f.feature).toBeLessThan(1e-5);
          expect(Math.abs(f.se - ref.se[f.feature]!), f.feature).toBeLessThan(1e-5);
        }
        for (const r of ours.rows)
          expect(Math.abs(r.rating - ref.ratings[r.model]!), r.model).toBeLessThan(1e-3);
        // headers rest on one answer (llama-13b, question 145, turn 2) once code blocks are removed: no coefficient
        expect(ours.notEstimableFeatures.map((x) => x.feature)).toEqual(ref.not_estimable);
        expect(ref.not_estimable).toEqual(['headers']);
        expect(ours.notEstimableFeatures[0]!.support.answers).toBe(1);
        expect(ours.notEstimableFeatures[0]!.reason).toMatch(/1 answer carries it/);
        console.info(
          `[style] ${judge}: ${ours.features.map((f) => `${f.feature} ${f.coefficient.toFixed(4)} [${f.lo.toFixed(3)}, ${f.hi.toFixed(3)}]`).join('; ')}; constant: ${ours.constant.join(', ') || 'none'}`,
        );
      }, 180_000);
    }

    it('--intervals sandwich: every interval from the question-clustered sandwich, no bootstrap round', async () => {
      const ref = styleReference(
        answers,
        csv('mt_bench_gpt4_pair.csv', (r) => r.judge === 'gpt4_pair'),
        ['length', 'headers', 'lists', 'bold'],
        0.5,
        { ...MIN_FEATURE_SUPPORT },
      );
      const ours = await arenaJson<{
        intervals: string;
        rounds: number;
        features: { feature: string; lo: number; hi: number }[];
        rows: { model: string; lo: number; hi: number; rawLo: number; rawHi: number; rank: number }[];
      }>([
        'ratings',
        '--db',
        db,
        '--judge',
        'gpt-4',
        '--style',
        'length,markdown',
        '--intervals',
        'sandwich',
      ]);
      expect([ours.intervals, ours.rounds]).toEqual(['sandwich', 0]);
      for (const f of ours.features) {
        expect(Math.abs(f.lo - ref.sandwich.coefficients[f.feature]![0]), f.feature).toBeLessThan(1e-5);
        expect(Math.abs(f.hi - ref.sandwich.coefficients[f.feature]![1]), f.feature).toBeLessThan(1e-5);
      }
      for (const r of ours.rows) {
        const [lo, hi] = ref.sandwich.ratings[r.model]!;
        const [rawLo, rawHi] = ref.sandwich.raw[r.model]!;
        expect(Math.abs(r.lo - lo), `${r.model} lo`).toBeLessThan(1e-3);
        expect(Math.abs(r.hi - hi), `${r.model} hi`).toBeLessThan(1e-3);
        expect(Math.abs(r.rawLo - rawLo), `${r.model} raw lo`).toBeLessThan(1e-3);
        expect(Math.abs(r.rawHi - rawHi), `${r.model} raw hi`).toBeLessThan(1e-3);
      }
      console.info(
        `[style] gpt-4 sandwich: ${ours.rows.map((r) => `${r.model} ${r.lo.toFixed(1)}–${r.hi.toFixed(1)}`).join(', ')}`,
      );
    }, 180_000);

    it('plain ratings beside the controlled ones equal `arena ratings` (plain Bradley–Terry)', async () => {
      const plain = await arenaJson<{ model: string; rating: number }[]>([
        'ratings',
        '--db',
        db,
        '--judge',
        'gpt-4',
      ]);
      const styled = await arenaJson<{ rows: { model: string; rawRating: number }[] }>([
        'ratings',
        '--db',
        db,
        '--judge',
        'gpt-4',
        '--style',
        'length',
        '--rounds',
        '10',
      ]);
      for (const p of plain)
        expect(Math.abs(styled.rows.find((r) => r.model === p.model)!.rawRating - p.rating)).toBeLessThan(
          1e-4,
        );
    }, 120_000);

    it('bad --style values are usage errors', async () => {
      const r = await runArena(['ratings', '--db', db, '--judge', 'gpt-4', '--style', 'lenght']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/--style.*lenght/);
      const e = await runArena([
        'ratings',
        '--db',
        db,
        '--judge',
        'gpt-4',
        '--style',
        'length',
        '--method',
        'elo',
      ]);
      expect(e.code).toBe(1);
      expect(e.stderr).toMatch(/--method bt/);
    });
  });
});
