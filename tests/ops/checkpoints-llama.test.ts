// Checkpoints answered in-process by node-llama-cpp (a tiny random llama plus one LoRA per checkpoint, written here),
// judged by two test servers (the tiny vocabulary makes judge prompts too long for the model itself).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyLlama } from '../judges/llama-cpp/gguf-writer.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { answerFile, HAVE_MTBENCH, MTBENCH, readDb } from './helpers.ts';
import { writeTinyLora } from './lora-writer.ts';

let haveLlama = true;
try {
  await import('node-llama-cpp');
} catch {
  haveLlama = false; // an optional dependency: without it there is no in-process generation to test
}

describe.skipIf(!HAVE_MTBENCH || !haveLlama)(
  'arena checkpoints: GGUF + LoRA per checkpoint, in-process',
  () => {
    // in this process, as the run (runArena): the generation is llama.cpp's native work, off the event loop
    let srv: OpenAIServer;
    let srv2: OpenAIServer;
    const dir = tmpDir('arena-ckpt-llama-');
    beforeAll(async () => {
      srv = await startOpenAIServer({ verdict: 'longer' });
      srv2 = await startOpenAIServer({ verdict: 'hash' });
    });
    afterAll(async () => Promise.all([srv?.close(), srv2?.close()]));

    it('generates four checkpoints (base + LoRA each), judges them with two judges, reports and charts', async () => {
      const base = join(dir, 'base.gguf');
      writeTinyLlama(base, { seed: 7 });
      const checkpoints = [1, 2, 3, 4].map((k) => {
        const lora = join(dir, `lora-${k * 100}.gguf`);
        writeTinyLora(lora, { seed: k, scale: 0.5 * k });
        return { name: `step-${k * 100}`, step: k * 100, gguf: base, lora };
      });
      const cfg = join(dir, 'checkpoints.json');
      writeFileSync(
        cfg,
        JSON.stringify({
          db: 'ckpt.db',
          series: 'tiny-sft',
          questions: [join(MTBENCH, 'question.jsonl')],
          prompts: [join(MTBENCH, 'judge_prompts.jsonl')],
          questionIds: [81, 141, 151],
          turns: [1, 2],
          baseline: { model: 'gpt-3.5-turbo', answers: answerFile('gpt-3.5-turbo') },
          checkpoints,
          judges: [
            { id: 'openai/judge', baseURL: srv.url, price: { input: 1, output: 2 } },
            { id: 'openai/judge-2', baseURL: srv2.url, price: { input: 1, output: 2 } },
          ],
          generation: { maxTokens: 16, threads: 1, contextSize: 512 },
          chart: 'winrate.svg',
          resamples: 500,
        }),
      );
      const r = await runArena(['checkpoints', 'run', '--config', cfg, '--json'], { timeoutMs: 300_000 });
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as {
        rows: {
          judge: string;
          checkpoint: string;
          winRate: { n: number; mean: number; lo: number | null; hi: number | null };
          vsPrevious: { n: number } | null;
        }[];
        best: Record<string, string>;
        tiedBest: Record<string, string[]>;
        chart: string;
        checkpoints: { generation: { kind: string; lora: string; temperatures: Record<string, number> } }[];
      };
      expect(report.rows).toHaveLength(8);
      expect(new Set(report.rows.map((x) => x.judge)).size).toBe(2);
      for (const row of report.rows) {
        expect(row.winRate.n).toBe(3);
        // 3 questions: under the 30-question rule, no interval (docs/statistics.md, "One rule for every interval")
        expect([row.winRate.lo, row.winRate.hi]).toEqual([null, null]);
      }
      expect(report.rows.filter((x) => x.vsPrevious).every((x) => x.vsPrevious!.n === 3)).toBe(true);
      // each judge names its best checkpoint, or the checkpoints tied for best (no best is claimed on a tie)
      expect(Object.keys({ ...report.best, ...report.tiedBest }).sort()).toHaveLength(2);
      for (const [judge, tied] of Object.entries(report.tiedBest)) {
        expect(report.best[judge]).toBeUndefined();
        expect(tied.length).toBeGreaterThan(1);
      }
      expect(report.checkpoints.map((c) => c.generation.kind)).toEqual([
        'llama-cpp',
        'llama-cpp',
        'llama-cpp',
        'llama-cpp',
      ]);
      expect(report.checkpoints[0]!.generation.temperatures).toEqual({
        humanities: 0.1,
        stem: 0.1,
        writing: 0.7,
      });
      // each LoRA makes its own answers
      const answers = readDb(join(dir, 'ckpt.db'), (d) =>
        d
          .prepare(
            "select model, turns from answers where model like 'tiny-sft@%' and question_id = 81 order by model",
          )
          .all(),
      ) as { model: string; turns: string }[];
      expect(answers).toHaveLength(4);
      expect(new Set(answers.map((a) => a.turns)).size).toBe(4);
      expect(answers.every((a) => JSON.parse(a.turns).length === 2)).toBe(true);
      // judged by each test server: 4 checkpoints x 3 questions x 2 turns x 2 orders
      expect(srv.log.filter((e) => e.path === '/v1/chat/completions')).toHaveLength(48);
      expect(srv2.log.filter((e) => e.path === '/v1/chat/completions')).toHaveLength(48);
      expect(readFileSync(report.chart, 'utf8')).toContain('openai/judge-2');
    }, 300_000);
  },
);
