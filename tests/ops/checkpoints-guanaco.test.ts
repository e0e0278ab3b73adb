// examples/checkpoints-guanaco.json (the study's 7 checkpoints vs gpt-3.5-turbo): the dry run's plan and GPT-4 cost,
// then the example end to end with the test server standing in for GPT-4 (same id, so GPT-4's price).
import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { JUDGE_LLAMA2_DIR, MTBENCH_DIR, noMtbenchOrJudgeLlama2, skipWhy } from '../support/materials.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';

const MT = MTBENCH_DIR;
const JL = JUDGE_LLAMA2_DIR;
const SKIP = skipWhy('checkpoints-guanaco', noMtbenchOrJudgeLlama2());
const EXAMPLE = join(REPO_ROOT, 'examples', 'checkpoints-guanaco.json');

/** The example with ../../shared/... mapped to the env dirs, its outputs in `dir`, and `over` applied. */
function relocate(dir: string, over: Record<string, unknown> = {}): string {
  const text = readFileSync(EXAMPLE, 'utf8')
    .replaceAll('${MTBENCH_DIR:-../../shared/mt_bench}/', `${MT}/`)
    .replaceAll('${JUDGE_LLAMA2_DIR:-../../shared/judge_llama2}/', `${JL}/`);
  const c = JSON.parse(text);
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(join(REPO_ROOT, 'examples'), p));
  for (const k of ['questions', 'references', 'prompts']) c[k] = c[k].map(abs);
  c.baseline.answers = abs(c.baseline.answers);
  for (const k of c.checkpoints) k.answers = abs(k.answers);
  Object.assign(c, { db: 'ckpt.db', chart: 'chart.svg' }, over);
  const file = join(dir, 'checkpoints-guanaco.json');
  writeFileSync(file, JSON.stringify(c));
  return file;
}

interface Plan {
  checkpoints: { name: string; step: number }[];
  lines: {
    judge: string;
    planned: number;
    toPlay: number;
    estTokensIn: number;
    estTokensOut: number;
    estCost: number;
    price: { input: number; output: number };
  }[];
  toPlay: number;
  estCost: number;
}

describe.skipIf(!!SKIP)('examples/checkpoints-guanaco.json', { timeout: 600_000 }, () => {
  let server: OpenAIServer;
  const dir = tmpDir('arena-guanaco-');
  beforeAll(async () => {
    server = await startOpenAIServer({ verdict: 'longer' });
  });
  afterAll(async () => server?.close());

  it('the shipped config is valid and names the 7 checkpoints, gpt-3.5-turbo as baseline and GPT-4 as judge', () => {
    const c = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
    expect(c.checkpoints.map((k: { step: number }) => k.step)).toEqual([
      500, 1000, 1500, 2000, 2500, 3000, 3500,
    ]);
    expect(c.baseline.model).toBe('gpt-3.5-turbo');
    expect(c.judges.map((j: { id: string }) => j.id)).toEqual(['openai/gpt-4']);
    for (const k of c.checkpoints)
      expect(existsSync(k.answers.replace('${JUDGE_LLAMA2_DIR:-../../shared/judge_llama2}/', `${JL}/`))).toBe(
        true,
      );
  });

  it('--dry-run prints the plan and its GPT-4 cost, creates nothing; the run then plays exactly that plan on the test server', async () => {
    const cfg = relocate(dir, {
      judges: [{ id: 'openai/gpt-4', baseURL: server.url, concurrency: 16, retries: 2, timeoutS: 60 }],
    });
    const text = await runArena(['checkpoints', 'run', '--config', cfg, '--dry-run']);
    expect(text.code, text.stderr).toBe(0);
    // 7 checkpoints x 80 questions x 2 turns x 2 orders
    expect(text.stdout).toMatch(/series llama-2-7b-guanaco: 7 checkpoint\(s\) against gpt-3\.5-turbo/);
    expect(text.stdout).toMatch(
      /checkpoints dry run: 2240 games to play, estimated \$[\d,]+\.\d{4}; nothing was changed/,
    );
    const dry = await runArena(['checkpoints', 'run', '--config', cfg, '--dry-run', '--json']);
    const plan = JSON.parse(dry.stdout) as Plan;
    expect(plan.lines).toHaveLength(1);
    const line = plan.lines[0]!;
    expect([line.judge, line.planned, line.toPlay]).toEqual(['openai/gpt-4', 2240, 2240]);
    expect(line.price).toEqual({ input: 30, output: 60 }); // GPT-4's list price
    expect(line.estTokensOut).toBe(2240 * 183);
    expect(line.estCost).toBeCloseTo((line.estTokensIn * 30 + line.estTokensOut * 60) / 1e6, 6);
    expect(existsSync(join(dir, 'ckpt.db'))).toBe(false);

    const run = await runArena(['checkpoints', 'run', '--config', cfg, '--json'], { timeoutMs: 600_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(server.log.filter((e) => e.path === '/v1/chat/completions')).toHaveLength(2240);
    const report = JSON.parse(run.stdout) as {
      rows: { judge: string; step: number; winRate: { mean: number; n: number } }[];
      best: Record<string, string>;
      chart: string;
    };
    expect(report.rows.map((r) => r.step)).toEqual([500, 1000, 1500, 2000, 2500, 3000, 3500]);
    expect(report.rows.every((r) => r.winRate.n === 80 && r.winRate.mean >= 0 && r.winRate.mean <= 1)).toBe(
      true,
    );
    expect(report.best['openai/gpt-4']).toMatch(/^checkpoint-\d+$/);
    expect(readFileSync(join(dir, 'chart.svg'), 'utf8')).toMatch(/^<svg/);
    // the estimate against the tokens the server counted (ceil(chars / 4) per request): within 1%
    const db = new Database(join(dir, 'ckpt.db'), { readonly: true });
    const t = db
      .prepare("SELECT count(*) AS n, sum(tokens_in) AS tin FROM games WHERE judge = 'openai/gpt-4'")
      .get() as { n: number; tin: number };
    db.close();
    expect(t.n).toBe(2240);
    expect(Math.abs(line.estTokensIn - t.tin) / t.tin).toBeLessThan(0.01);
    // a second dry run: everything is stored, nothing to play
    const again = await runArena(['checkpoints', 'run', '--config', cfg, '--dry-run']);
    expect(again.stdout).toMatch(/checkpoints dry run: 0 games to play, estimated \$0\.00/);
  });
});
