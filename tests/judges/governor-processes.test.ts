// Two runs, each with its own connection, judge and governor, share one token-limited judge server and a database
// file, and nothing else: the x-ratelimit-* headers tell each what the other spent and each keeps to its share.
// The server's log counts: every game paid once, few 429s, about the time the limit allows. In-process to stay
// quick (bench/ratelimit.ts --processes 2 runs real processes); the fake-clock version is share.test.ts.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTournament, planRun } from '../../src/engine/run.ts';
import { importFiles } from '../../src/importers/import.ts';
import { JudgeSetup, openJudge } from '../../src/judges/registry.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { REPO_ROOT, tmpDir } from '../support/cli.ts';
import { promptHash, spawnOpenAIServer } from '../support/openai-server.ts';

const OWN = join(REPO_ROOT, 'questions');
const MODELS = ['arena-sage', 'arena-swift', 'arena-echo'];
const MAX_TOKENS = 256;

describe('two runs, each with its own governor, under one limit', () => {
  it(
    'pay each game once, keep 429s to a few, and take about the time the limit allows',
    { timeout: 60_000 },
    async () => {
      const dir = tmpDir('arena-two-processes-');
      const db = join(dir, 'arena.db');
      const setup = openSqliteStore(db);
      await importFiles(setup, {
        questions: [join(OWN, 'arena.jsonl')],
        answers: readdirSync(join(OWN, 'answers')).map((f) => join(OWN, 'answers', f)),
        prompts: [join(OWN, 'judge_prompts.jsonl')],
      });
      const common = { mode: 'pairwise-all' as const, models: MODELS, promptSet: 'arena', turns: [1] };
      const { games } = await planRun({
        store: setup,
        judge: { id: 'openai/judge', complete: () => Promise.reject(new Error('not called')) },
        ...common,
      });
      await setup.close();
      // the demand as the limit counts it (prompt characters / 4 + max_tokens), and a limit over a 4 s window (its
      // headers' reset says so) holding half of it: the rest comes at the refill rate, 4 s at least, at some 18 calls
      // a second (slower than two runs send them even on a loaded machine, so the limit is what paces them)
      const demand = games.reduce(
        (s, g) => s + Math.ceil((g.spec.systemPrompt.length + g.spec.userPrompt.length) / 4) + MAX_TOKENS,
        0,
      );
      const limit = Math.round(demand / 2);
      const windowMs = 4000;
      const srv = await spawnOpenAIServer({
        latencyMs: 100,
        verdict: 'longer',
        rateLimit: { tpm: limit, windowMs },
        logFile: join(dir, 'server.jsonl'),
      });
      const one = async (key: string) => {
        const store = openSqliteStore(db);
        const judge = await openJudge(JudgeSetup.parse({ id: 'openai/judge', baseURL: srv.url }), {
          OPENAI_API_KEY: key,
        });
        try {
          return await runTournament({
            store,
            judge,
            ...common,
            settings: { maxTokens: MAX_TOKENS },
            concurrency: 64,
            owner: key,
          });
        } finally {
          await store.close();
        }
      };
      try {
        const [a, b] = await Promise.all([one('sk-run-1'), one('sk-run-2')]);
        const log = srv.readLog().filter((e) => e.path === '/v1/chat/completions');
        const ok = log.filter((e) => e.status === 200);
        // every game paid once: one answered request per planned prompt, every game stored, both runs played
        const planned = games.map((g) => promptHash(g.spec.systemPrompt, g.spec.userPrompt));
        expect(ok.map((e) => e.hash).sort()).toEqual(planned.sort());
        expect(a.played + b.played).toBe(games.length);
        expect(a.failed + b.failed).toBe(0);
        expect(Math.min(a.played, b.played)).toBeGreaterThan(0);
        // each keeps to its share once it has heard the server: few 429s after its first round (each taking the whole
        // bucket, as before, gave 9% in bench/ratelimit.ts). The first round is the 64 calls a run sends before any
        // answer, as a server that announces no limit must get them; a 429 among them is what tells it to slow down.
        const first = new Set(
          ['un-1', 'un-2'].flatMap((k) => log.filter((e) => e.keyTail === k).slice(0, 64)),
        );
        const later = log.filter((e) => !first.has(e));
        const limited = later.filter((e) => e.status === 429).length;
        expect(limited / later.length, `${limited} 429s of ${later.length} requests`).toBeLessThanOrEqual(
          0.05,
        );
        // and neither holds back so much that the pair crawls: from the first request to the last answer, within
        // 1.5x the limit's own minimum ((tokens charged - the first bucket) / the refill rate) and a round trip
        const charged = ok.reduce((n, e) => n + (e.charged ?? 0), 0);
        const minimumMs = ((charged - limit) / limit) * windowMs;
        const at = log.map((e) => e.at);
        expect(Math.max(...at) - Math.min(...at)).toBeLessThanOrEqual(1.5 * minimumMs + 100);
      } finally {
        await srv.close();
      }
    },
  );
});
