// Several processes, one limit: two `arena run`s on one database against one judge server (its own process on
// 127.0.0.1) that enforces an OpenAI-style token limit. Neither process knows of the other; the x-ratelimit-*
// headers tell each what the other spent. The server's own log is the count: every game paid once (one 200 per
// prompt), and 429s far below what a run blind to the headers gets.
import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, arenaOk, spawnArena, tmpDir } from '../support/cli.ts';
import { spawnOpenAIServer } from '../support/openai-server.ts';

const OWN = join(REPO_ROOT, 'questions');
const MODELS = 'arena-sage,arena-swift,arena-echo,arena-drift';
const MAX_TOKENS = 256;

describe('two processes under one limit', () => {
  it(
    'pay each game once and together keep 429s far below a blind run (the 5% goal is in bench/ratelimit.ts)',
    { timeout: 180_000 },
    async () => {
      const dir = tmpDir('arena-two-processes-');
      const db = join(dir, 'arena.db');
      await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
      await arenaOk([
        'import',
        'answers',
        ...readdirSync(join(OWN, 'answers')).map((f) => join(OWN, 'answers', f)),
        '--db',
        db,
      ]);
      await arenaOk(['import', 'prompts', join(OWN, 'judge_prompts.jsonl'), '--db', db]);
      const run = ['run', '--db', db, '--judge', 'openai/judge', '--models', MODELS, '--prompts', 'arena'];
      const common = [...run, '--turn', '1', '--max-tokens', String(MAX_TOKENS), '--concurrency', '64'];
      // the run's demand, as a limit counts it (prompt tokens + max_tokens), from the dry run
      const dry = await arenaOk([...common, '--base-url', 'http://127.0.0.1:9/v1', '--dry-run']);
      const planned = Number(dry.match(/(\d+) games planned/)![1]);
      const demand = Number(dry.match(/about (\d+) tokens/)![1]);
      // a limit over a 10 s window (its headers' reset says so) holding two thirds of the demand: the rest comes at
      // the refill rate, 5 s at least, most of the run spent at the limit
      const limit = Math.round(demand / 1.5);
      const srv = await spawnOpenAIServer({
        latencyMs: 100,
        verdict: 'longer',
        rateLimit: { tpm: limit, windowMs: 10_000 },
        logFile: join(dir, 'server.jsonl'),
      });
      try {
        const args = [...common, '--base-url', srv.url];
        const [a, b] = [spawnArena(args), spawnArena(args)];
        const [ra, rb] = [await a.done, await b.done];
        expect(ra.code, ra.stderr).toBe(0);
        expect(rb.code, rb.stderr).toBe(0);
        const log = srv.readLog().filter((e) => e.path === '/v1/chat/completions');
        const ok = log.filter((e) => e.status === 200);
        const limited = log.filter((e) => e.status === 429).length;
        // every game paid once: one answered request per prompt, and every game stored
        expect(ok).toHaveLength(planned);
        expect(new Set(ok.map((e) => e.hash)).size).toBe(planned);
        const sqlite = new Database(db, { readonly: true });
        const stored = (sqlite.prepare('select count(*) as n from games').get() as { n: number }).n;
        sqlite.close();
        expect(stored).toBe(planned);
        // the 429 share depends on timing (process start skew on a loaded machine): the <= 5% goal is measured by
        // bench/ratelimit.ts --processes 2 (3.2%); here, far below what ignoring the headers gave (76%). A loaded CI
        // machine has given 26%.
        expect(limited / log.length, `${limited} 429s of ${log.length} requests`).toBeLessThanOrEqual(0.4);
        // both processes played
        expect(ra.stdout).toMatch(/[1-9]\d* played/);
        expect(rb.stdout).toMatch(/[1-9]\d* played/);
      } finally {
        await srv.close();
      }
    },
  );
});
