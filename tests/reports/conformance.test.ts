// Conformance with FastChat's llm_judge on the real release, through the CLI only. Expected figures are published:
// mt-bench-protocol.md §9 (FastChat's unmodified show_result and compute_agreement), not our output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../support/materials.ts';
import { mtbenchReleaseDb, mtbenchReleaseSummary } from '../support/mtbench-release.ts';

const DIR = MTBENCH_DIR;
skipWhy('conformance', noMtbench('the real MT-Bench release, to run the conformance suite'));

interface StandingRow {
  model: string;
  win: number;
  loss: number;
  tie: number;
  error: number;
  winRate: number;
  lossRate: number;
  winRateAdjusted: number;
}
interface AgreementRow {
  turn: number;
  setup: 'with-tie' | 'without-tie';
  total: number;
  agree: number;
}

type Published = [
  model: string,
  win: number,
  loss: number,
  tie: number,
  winRate: number,
  lossRate: number,
  winRateAdjusted: number,
];

// §9.2 `--mode pairwise-all` (both turns), identical to FastChat's June-2023 README table.
const PAIRWISE_ALL: Published[] = [
  ['gpt-4', 617, 45, 138, 0.77125, 0.05625, 0.8575],
  ['claude-v1', 445, 115, 240, 0.55625, 0.14375, 0.70625],
  ['gpt-3.5-turbo', 372, 198, 230, 0.465, 0.2475, 0.60875],
  ['vicuna-13b-v1.2', 242, 310, 248, 0.3025, 0.3875, 0.4575],
  ['alpaca-13b', 104, 515, 181, 0.13, 0.64375, 0.243125],
  ['llama-13b', 20, 617, 163, 0.025, 0.77125, 0.126875],
];
// §9.2 `--mode pairwise-baseline` (baseline gpt-3.5-turbo, both turns).
const PAIRWISE_BASELINE: Published[] = [
  ['gpt-4', 107, 9, 44, 0.66875, 0.05625, 0.80625],
  ['claude-v1', 64, 23, 73, 0.4, 0.14375, 0.628125],
  ['vicuna-13b-v1.2', 21, 72, 67, 0.13125, 0.45, 0.340625],
  ['alpaca-13b', 5, 129, 26, 0.03125, 0.80625, 0.1125],
  ['llama-13b', 1, 139, 20, 0.00625, 0.86875, 0.06875],
];
// §9.2 per turn, pairwise-all, as win/loss/tie (adjusted); every model plays 5 × 80 = 400 matches per turn.
const PER_TURN: Record<1 | 2, [string, number, number, number, number][]> = {
  1: [
    ['gpt-4', 293, 27, 80, 0.8325],
    ['claude-v1', 210, 61, 129, 0.68625],
    ['gpt-3.5-turbo', 180, 98, 122, 0.6025],
    ['vicuna-13b-v1.2', 131, 133, 136, 0.4975],
    ['alpaca-13b', 54, 260, 86, 0.2425],
    ['llama-13b', 14, 303, 83, 0.13875],
  ],
  2: [
    ['gpt-4', 324, 18, 58, 0.8825],
    ['claude-v1', 235, 54, 111, 0.72625],
    ['gpt-3.5-turbo', 192, 100, 108, 0.615],
    ['vicuna-13b-v1.2', 111, 177, 112, 0.4175],
    ['alpaca-13b', 50, 255, 95, 0.24375],
    ['llama-13b', 6, 314, 80, 0.115],
  ],
};
// §9.1 compute_agreement.py stdout: [turn, setup, total, agree].
const AGREEMENT_GPT4_HUMAN: [number, string, number, number][] = [
  [1, 'with-tie', 1343, 886],
  [1, 'without-tie', 859, 727],
  [2, 'with-tie', 1325, 871],
  [2, 'without-tie', 864, 731],
];
const AGREEMENT_HUMAN_HUMAN: [number, string, number, number][] = [
  [1, 'with-tie', 721, 454],
  [1, 'without-tie', 479, 388],
  [2, 'with-tie', 707, 471],
  [2, 'without-tie', 474, 388],
];

function close(actual: number, expected: number, what: string) {
  expect(Math.abs(actual - expected), `${what}: got ${actual}, expected ${expected}`).toBeLessThanOrEqual(
    1e-9,
  );
}

function expectTable(rows: StandingRow[], published: Published[]) {
  expect(rows.map((r) => r.model)).toEqual(published.map((p) => p[0]));
  rows.forEach((r, k) => {
    const [model, win, loss, tie, winRate, lossRate, adj] = published[k]!;
    expect({ model: r.model, win: r.win, loss: r.loss, tie: r.tie, error: r.error }).toEqual({
      model,
      win,
      loss,
      tie,
      error: 0,
    });
    close(r.winRate, winRate, `${model} winRate`);
    close(r.lossRate, lossRate, `${model} lossRate`);
    close(r.winRateAdjusted, adj, `${model} winRateAdjusted`);
  });
}

function expectAgreement(rows: AgreementRow[], published: [number, string, number, number][]) {
  expect(rows.map((r) => [r.turn, r.setup, r.total, r.agree])).toEqual(published);
}

describe.skipIf(!DIR)('conformance with FastChat on the MT-Bench release (protocol §9)', () => {
  const dir = DIR ?? '';
  const tmp = tmpDir('arena-conformance-');
  const db = join(tmp, 'release.db');

  beforeAll(async () => {
    // the release as `arena import mtbench --dir` stores it (imported once per run), and what it printed
    await mtbenchReleaseDb(db, dir);
    expect(await mtbenchReleaseSummary(dir)).toMatch(/80 questions/);
  }, 180_000);

  it('pairwise-all standings equal §9.2 row for row', async () => {
    const rows = await arenaJson<StandingRow[]>([
      'standings',
      '--judge',
      'gpt-4',
      '--mode',
      'pairwise-all',
      '--db',
      db,
    ]);
    expectTable(rows, PAIRWISE_ALL);
  });

  it('pairwise-baseline standings (gpt-3.5-turbo) equal §9.2', async () => {
    const rows = await arenaJson<StandingRow[]>([
      'standings',
      '--judge',
      'gpt-4',
      '--mode',
      'pairwise-baseline',
      '--baseline',
      'gpt-3.5-turbo',
      '--db',
      db,
    ]);
    expectTable(rows, PAIRWISE_BASELINE);
  });

  for (const turn of [1, 2] as const) {
    it(`turn ${turn} standings equal §9.2's per-turn figures`, async () => {
      const rows = await arenaJson<StandingRow[]>([
        'standings',
        '--judge',
        'gpt-4',
        '--mode',
        'pairwise-all',
        '--turn',
        String(turn),
        '--db',
        db,
      ]);
      const published: Published[] = PER_TURN[turn].map(([m, w, l, t, adj]) => [
        m,
        w,
        l,
        t,
        w / 400,
        l / 400,
        adj,
      ]);
      for (const [m, w, l, t] of PER_TURN[turn]) expect(w + l + t, `${m} turn ${turn}`).toBe(400);
      expectTable(rows, published);
    });
  }

  it('agreement gpt-4 vs human equals §9.1 (886/1343, 727/859, 871/1325, 731/864)', async () => {
    expectAgreement(
      await arenaJson<AgreementRow[]>(['agreement', '--judges', 'gpt-4,human', '--db', db]),
      AGREEMENT_GPT4_HUMAN,
    );
  });

  it('agreement human vs human equals §9.1 (454/721, 388/479, 471/707, 388/474)', async () => {
    expectAgreement(
      await arenaJson<AgreementRow[]>(['agreement', '--judges', 'human,human', '--db', db]),
      AGREEMENT_HUMAN_HUMAN,
    );
  });
});

// ------------------------------------------------------------------ FastChat's own judgment files

interface PairLine {
  question_id: number;
  model_1: string;
  model_2: string;
  g1_winner: string;
  g2_winner: string;
  g1_judgment: string;
  g2_judgment: string;
  turn: number;
}
interface SingleLine {
  question_id: number;
  model: string;
  judgment: string;
  score: number;
  turn: number;
}

const readJsonl = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

/** FastChat show_result.py (pairwise), written out plainly: protocol §4.1, steps 1–5. */
function showResult(rows: { model_1: string; model_2: string; g1_winner: string; g2_winner: string }[]) {
  const acc = new Map<string, { win: number; loss: number; tie: number }>();
  const get = (m: string) => acc.get(m) ?? (acc.set(m, { win: 0, loss: 0, tie: 0 }), acc.get(m)!);
  let dropped = 0;
  for (const r of rows) {
    if (r.g1_winner === 'error' || r.g2_winner === 'error') {
      dropped++;
      continue;
    }
    if (r.g1_winner === 'tie' || r.g1_winner !== r.g2_winner) {
      get(r.model_1).tie++;
      get(r.model_2).tie++;
    } else {
      const [w, l] = r.g1_winner === 'model_1' ? [r.model_1, r.model_2] : [r.model_2, r.model_1];
      get(w).win++;
      get(l).loss++;
    }
  }
  const table = [...acc].map(([model, c]) => {
    const n = c.win + c.loss + c.tie;
    return {
      model,
      ...c,
      winRate: c.win / n,
      lossRate: c.loss / n,
      winRateAdjusted: (c.win + 0.5 * c.tie) / n,
    };
  });
  return { table, dropped };
}

/** FastChat's verdict test (gen_judgment: "[[A]]" before "[[B]]" before "[[C]]"), independent of src/. */
const fastchatPosition = (t: string) =>
  t.includes('[[A]]') ? 'A' : t.includes('[[B]]') ? 'B' : t.includes('[[C]]') ? 'C' : 'error';
/** The last-verdict reading: whichever of [[A]]/[[B]]/[[C]] appears last. */
function lastPosition(t: string): string {
  const positions = (['A', 'B', 'C'] as const)
    .map((x) => [x, t.lastIndexOf(`[[${x}]]`)] as const)
    .filter(([, i]) => i >= 0);
  if (!positions.length) return 'error';
  return positions.sort((a, b) => b[1] - a[1])[0]![0];
}
const toModel = (pos: string, order: 'AB' | 'BA') =>
  pos === 'C'
    ? 'tie'
    : pos === 'error'
      ? 'error'
      : (pos === 'A') === (order === 'AB')
        ? 'model_1'
        : 'model_2';
/** Single ratings: FastChat takes the first [[n]], else the first [n]; the last-parser takes the last [[n]] within 0..10. */
function lastRating(t: string): number | null {
  const all = [...t.matchAll(/\[\[(\d+\.?\d*)\]\]/g)];
  if (!all.length) return null;
  const n = Number(all[all.length - 1]![1]);
  return n >= 0 && n <= 10 ? n : null;
}

describe.skipIf(!DIR)(
  'FastChat judgment files: format_samples/phi-3_vs_phi-3-dpo (protocol §1.4, §1.5, §8)',
  () => {
    const dir = DIR ?? '';
    const sample = join(dir, 'format_samples', 'phi-3_vs_phi-3-dpo');
    const pairFile = join(sample, 'gpt-4_pair.jsonl');
    const singleFile = join(sample, 'gpt-4_single.jsonl');
    const tmp = tmpDir('arena-phi3-');
    const db = join(tmp, 'phi3.db');
    let pairs: PairLine[] = [];
    let singles: SingleLine[] = [];

    beforeAll(async () => {
      pairs = readJsonl<PairLine>(pairFile);
      singles = readJsonl<SingleLine>(singleFile);
      await arenaOk(['import', 'questions', join(dir, 'question.jsonl'), '--db', db]);
      await arenaOk(['import', 'prompts', join(dir, 'judge_prompts.jsonl'), '--db', db]);
    }, 120_000);

    it('imports 150 pairwise games (75 lines × 2 orders) and 160 single rows', async () => {
      expect(pairs.length).toBe(75);
      expect(singles.length).toBe(160);
      expect(await arenaOk(['import', 'judgments', pairFile, '--db', db])).toMatch(/: 150 games$/m);
      expect(await arenaOk(['import', 'judgments', singleFile, '--db', db])).toMatch(/: 160 games$/m);
      // importing the same file again adds nothing: a game is identified by its content
      await arenaOk(['import', 'judgments', pairFile, '--db', db]);
      const judges = await arenaJson<{ judge: string; games: number; votes: number }[]>([
        'judges',
        '--db',
        db,
      ]);
      expect(judges).toEqual([{ judge: 'gpt-4', games: 310, votes: 0 }]);
    }, 180_000);

    it("pairwise standings equal FastChat's show_result computed from the raw file; $ERROR$ games count as errors", async () => {
      const errorGames = pairs
        .flatMap((r) => [r.g1_judgment, r.g2_judgment])
        .filter((t) => t === '$ERROR$').length;
      expect(errorGames).toBe(3); // protocol §1.5 / §8
      const expected = showResult(pairs);
      const rows = await arenaJson<StandingRow[]>([
        'standings',
        '--judge',
        'gpt-4',
        '--mode',
        'pairwise-all',
        '--models',
        'phi-3,phi-3-dpo',
        '--db',
        db,
      ]);
      expect(rows.map((r) => r.model).sort()).toEqual(['phi-3', 'phi-3-dpo']);
      for (const r of rows) {
        const e = expected.table.find((x) => x.model === r.model)!;
        expect({ win: r.win, loss: r.loss, tie: r.tie }).toEqual({ win: e.win, loss: e.loss, tie: e.tie });
        close(r.winRate, e.winRate, `${r.model} winRate`);
        close(r.lossRate, e.lossRate, `${r.model} lossRate`);
        close(r.winRateAdjusted, e.winRateAdjusted, `${r.model} winRateAdjusted`);
        // the matches FastChat drops are counted as errors: not dropped silently, not ties
        expect(r.error).toBe(expected.dropped);
        expect(r.win + r.loss + r.tie + r.error).toBe(pairs.length);
      }
      expect(expected.dropped).toBeGreaterThan(0);
    }, 180_000);

    it("single standings: FastChat's row mean over parsed scores", async () => {
      const rows = await arenaJson<
        { model: string; turn1: number; turn2: number; score: number; n: number; error: number }[]
      >(['standings', '--judge', 'gpt-4', '--mode', 'single', '--db', db]);
      const kept = singles.filter((s) => s.score !== -1);
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      expect(rows).toHaveLength(1);
      expect(rows[0]!.model).toBe('phi-3-dpo');
      expect(rows[0]!.n).toBe(kept.length);
      expect(rows[0]!.error).toBe(singles.length - kept.length);
      close(rows[0]!.score, mean(kept.map((s) => s.score)), 'score');
      close(rows[0]!.turn1, mean(kept.filter((s) => s.turn === 1).map((s) => s.score)), 'turn1');
      close(rows[0]!.turn2, mean(kept.filter((s) => s.turn === 2).map((s) => s.score)), 'turn2');
    });

    it('reparse --parser last: as many verdicts change as an independent reading of the raw texts says', async () => {
      let changed = 0;
      let unparsable = 0;
      const lastVerdicts: PairLine[] = [];
      for (const r of pairs) {
        const g1 = toModel(lastPosition(r.g1_judgment), 'AB');
        const g2 = toModel(lastPosition(r.g2_judgment), 'BA');
        // the recorded winners are FastChat's reading (the importer checks it); count the games whose reading differs
        expect(toModel(fastchatPosition(r.g1_judgment), 'AB')).toBe(r.g1_winner);
        expect(toModel(fastchatPosition(r.g2_judgment), 'BA')).toBe(r.g2_winner);
        changed += Number(g1 !== r.g1_winner) + Number(g2 !== r.g2_winner);
        unparsable += Number(g1 === 'error') + Number(g2 === 'error');
        lastVerdicts.push({ ...r, g1_winner: g1, g2_winner: g2 });
      }
      for (const s of singles) {
        const v = lastRating(s.judgment);
        changed += Number((v ?? -1) !== s.score);
        unparsable += Number(v === null);
      }
      console.info(
        `[conformance] reparse --parser last on the phi-3 sample: ${changed} of ${pairs.length * 2 + singles.length} verdicts change, ${unparsable} unparsable`,
      );

      const out = await arenaOk(['reparse', '--parser', 'last', '--judge', 'gpt-4', '--db', db]);
      const m = /^(\d+) games re-parsed with last@1: (\d+) verdict\(s\) changed, (\d+) unparsable/m.exec(out);
      expect(m, out).not.toBeNull();
      expect(Number(m![1])).toBe(pairs.length * 2 + singles.length);
      expect(Number(m![2])).toBe(changed);
      expect(Number(m![3])).toBe(unparsable);
      expect(unparsable).toBe(3); // the three $ERROR$ games

      // the standings now follow the last-verdict reading
      const expected = showResult(lastVerdicts);
      const rows = await arenaJson<StandingRow[]>([
        'standings',
        '--judge',
        'gpt-4',
        '--models',
        'phi-3,phi-3-dpo',
        '--db',
        db,
      ]);
      for (const r of rows) {
        const e = expected.table.find((x) => x.model === r.model)!;
        expect({ win: r.win, loss: r.loss, tie: r.tie, error: r.error }).toEqual({
          win: e.win,
          loss: e.loss,
          tie: e.tie,
          error: expected.dropped,
        });
      }
    }, 180_000);

    it('a missing judgment file is one clear error and exit code 1', async () => {
      const r = await runArena(['import', 'judgments', join(tmp, 'missing.jsonl'), '--db', db]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('missing.jsonl');
    });
  },
);
