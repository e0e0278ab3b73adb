// `arena start` with the release and the Judge Llama 2 study (the run's shared start, tests/support/npm-start.ts):
// the home page shows GPT-4's and Llama-2-70B's boards side by side with their expert agreement and a reading,
// every figure checked against tests/reference/judge_llama2.py on the raw files.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { JUDGE_LLAMA2_DIR, MTBENCH_DIR, noMtbenchOrJudgeLlama2, skipWhy } from '../support/materials.ts';
import { npmStartDatabase } from '../support/npm-start.ts';

const MT = MTBENCH_DIR;
const JL = JUDGE_LLAMA2_DIR;
const PYTHON = '/usr/bin/python3';
const SKIP = skipWhy(
  'start-judges',
  noMtbenchOrJudgeLlama2(),
  spawnSync(PYTHON, ['-c', 'import numpy']).status !== 0 ? `${PYTHON} cannot import numpy` : undefined,
);

const cells = (table: string) =>
  [...table.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)]
    .map((r) =>
      [...r[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) =>
        c[1]!.replace(/<[^>]+>/g, '').trim(),
      ),
    )
    .filter((r) => r.length);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

describe.skipIf(!!SKIP)(
  'arena start shows GPT-4 and the Llama-2-70B judge side by side',
  { timeout: 300_000 },
  () => {
    it('imports both, and the home page shows both boards, agreement with the experts and the computed reading', async () => {
      const r = spawnSync(
        PYTHON,
        [
          join(REPO_ROOT, 'tests/reference/judge_llama2.py'),
          join(JL!, 'model_judgment/L40-Llama-2-70b-instruct-v2.jsonl.gz'),
          join(MT!, 'human_judgments/mt_bench_human.csv'),
          join(MT!, 'human_judgments/mt_bench_gpt4_pair.csv'),
        ],
        { encoding: 'utf8', timeout: 120_000 },
      );
      expect(r.status, r.stderr).toBe(0);
      const ref = JSON.parse(r.stdout) as {
        standings: { model: string; win: number; loss: number; tie: number; winRateAdjusted: number }[];
        agreement: { turn: number; setup: string; ratio: number }[];
        quality: Record<
          'llama' | 'gpt4',
          {
            turn: number;
            errorsOneGame: number;
            errorsBothGames: number;
            consistent: number;
            inconsistent: number;
          }[]
        >;
        pearson: number;
        gpt4WinRateAdjusted: Record<string, number>;
      };
      // the first `arena start` of this run, on an empty database (tests/support/npm-start.ts)
      const s = await npmStartDatabase();
      expect(s.stdout).toMatch(
        /imported the MT-Bench release from .*: 80 questions, 480 answers, 5755 votes/,
      );
      expect(s.stdout).toMatch(
        /imported the Judge Llama 2 study's judgments from .*L40-Llama-2-70b-instruct-v2\.jsonl\.gz: 4800 games as judge llama-2-70b-instruct-v2/,
      );
      if (process.env.JUDGE_SETS_DIR) {
        // LLMBar's five labelled sets (419 items) come in beside the tournament and its judges reach /judges
        expect(s.stdout).toMatch(
          /imported 5 labelled pair sets from .*llmbar: 419 items, judges .*GPT-4\/Vanilla/,
        );
        const judges = s.served['/judges'];
        expect(judges.status).toBe(200);
        const board = judges.body;
        for (const j of ['gpt-4', 'llama-2-70b-instruct-v2', 'GPT-4/Vanilla', 'LLaMA2/Vanilla'])
          expect(board).toContain(j);
      }
      const res = s.served['/judges'];
      expect(res.status).toBe(200);
      const html = res.body;
      const boards = [
        ...html.matchAll(/<table class="duel-board" data-judge="([^"]+)">([\s\S]*?)<\/table>/g),
      ];
      expect(boards.map((b) => b[1])).toEqual(['gpt-4', 'llama-2-70b-instruct-v2']);
      const llama = cells(boards[1]![2]!).slice(1);
      expect(llama.map((c) => c[1])).toEqual(ref.standings.map((x) => x.model));
      for (const [k, want] of ref.standings.entries())
        expect(llama[k]!.slice(2, 5).map(Number)).toEqual([want.win, want.loss, want.tie]);
      for (const [k, want] of ref.standings.entries())
        expect(Number(llama[k]![6])).toBeCloseTo(want.winRateAdjusted, 4);
      const gpt4 = cells(boards[0]![2]!).slice(1);
      for (const row of gpt4) expect(Number(row[6])).toBeCloseTo(ref.gpt4WinRateAdjusted[row[1]!]!, 4);

      const reading = html
        .match(/<p class="reading" id="duel-reading">([\s\S]*?)<\/p>/)![1]!
        .replace(/&#39;/g, "'");
      const [l0, g0, l2] = [
        ref.quality.llama.find((q) => q.turn === 0)!,
        ref.quality.gpt4.find((q) => q.turn === 0)!,
        ref.quality.llama.find((q) => q.turn === 2)!,
      ];
      const li = l0.inconsistent / (l0.consistent + l0.inconsistent);
      const gi = g0.inconsistent / (g0.consistent + g0.inconsistent);
      const errors = l0.errorsOneGame + l0.errorsBothGames;
      // like for like first (checked against tests/reference/like_for_like.py in tests/importers/judge-llama2),
      // then each judge on its own matches, every figure with its interval
      expect(reading).toMatch(
        /^On the 2,027 matches where both judges gave a verdict in both orders \(95% intervals/,
      );
      expect(reading).toContain(
        `in ${errors} of 2,400 matches (${pct(errors / 2400)}), ${pct((l2.errorsOneGame + l2.errorsBothGames) / errors)} of them on turn 2`,
      );
      expect(reading).toContain(
        `on its ${(l0.consistent + l0.inconsistent).toLocaleString('en-US')}; 95% intervals from 1,000 rounds resampling the 80 questions): ${pct(li)} [`,
      );
      expect(reading).toContain(`against ${pct(gi)} [`);
      expect(reading).toContain(`, and r ${ref.pearson.toFixed(3)} [`);
      expect(reading.indexOf('own matches')).toBeGreaterThan(reading.indexOf('on these matches'));
      expect(s.exitCode).toBe(0);
    });

    it('a JUDGE_LLAMA2_DIR without the file is one clear error before anything is created, exit 1', async () => {
      const db = join(tmpDir('arena-start-judges-'), 'arena.db');
      // the real command in a child process: this file has no other use for the CLI's modules in its own graph
      const r = await runArena(['start', '--db', db, '--port', '0'], {
        env: { JUDGE_LLAMA2_DIR: join(REPO_ROOT, 'no-such-dir') },
        spawn: true,
      });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /no-such-dir\/model_judgment\/L40-Llama-2-70b-instruct-v2\.jsonl\.gz: no such file .*JUDGE_LLAMA2_DIR=none skips the study/,
      );
      expect(existsSync(db)).toBe(false);
    });
  },
);
