// The fine-tuned judges' schemes on a local GGUF: the verdict grammar does not fit their formats, so such a game is
// generated unconstrained and read by the scheme's own parser. A random-weight model writes no valid verdict; what
// matters is that its raw text is stored as written and never forced into a letter.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_FORMATS } from '../../../src/core/schemes/index.ts';
import { toVerdict } from '../../../src/core/verdict/parse.ts';
import { runTournament } from '../../../src/engine/run.ts';
import { llamaCppJudge, llamaJudgeId, type LlamaCppJudge } from '../../../src/judges/llama-cpp/provider.ts';
import { openSqliteStore } from '../../../src/storage/sqlite.ts';
import { REPO_ROOT, tmpDir } from '../../support/cli.ts';
import { seed } from './fixtures.ts';
import { writeTinyLlama } from './gguf-writer.ts';

const dir = tmpDir('arena-llama-schemes-');
const TINY = join(dir, 'tiny-random-llama.gguf');
writeTinyLlama(TINY, { seed: 11 });
const SHARED = join(REPO_ROOT, '..', 'shared', 'models', 'llama-2-tiny-random.gguf'); // as tests/judges/llama-cpp/llama-cpp.test.ts
const MODELS: [string, string][] = [['generated tiny llama', TINY]];
if (existsSync(SHARED)) MODELS.push(['shared llama-2-tiny-random', SHARED]);
const CONTESTANTS = ['m1', 'm2', 'm3'];

describe.each(MODELS)('scheme games on a llama-cpp judge: %s', (_name, path) => {
  let judge: LlamaCppJudge;
  beforeAll(async () => {
    judge = llamaCppJudge({ modelPath: path, threads: 1, contextSize: 2048, sequences: 4 });
    await judge.load();
    // the first load in a process starts the runtime (node-llama-cpp tests its binary first): minutes under load
  }, 300_000);
  afterAll(() => judge?.close());

  it('JudgeLM and Arena-Hard games are generated without the verdict grammar and read by their own parsers; an [[A]] scheme on the same judge still ends in a letter', async () => {
    const store = openSqliteStore(join(dir, `schemes-${MODELS.findIndex((m) => m[1] === path)}.db`));
    try {
      await seed(store, CONTESTANTS, 4);
      // the grammar is on for this judge: its id (model name and content hash, never the path) has no grammar=off
      expect(judge.id).toBe(llamaJudgeId({ modelPath: path }));
      expect(judge.id).not.toMatch(/grammar=off/);
      for (const [set, format] of [
        ['judgelm', 'judgelm'],
        ['arena-hard', 'arena-hard'],
      ] as const) {
        const s = await runTournament({
          store,
          judge,
          mode: 'pairwise-all',
          models: CONTESTANTS,
          turns: [1],
          promptSet: set,
          settings: { maxTokens: 24 },
          concurrency: 4,
        });
        expect(s.played).toBe(24);
        expect(s.failed).toBe(0);
        const games = (await store.games.list({ judge: judge.id })).filter(
          (g) => g.parser === OUTPUT_FORMATS[format]!.version,
        );
        expect(games).toHaveLength(24);
        for (const g of games) {
          expect(g.promptName.startsWith(set)).toBe(true);
          // the reply is the model's own text: no grammar-written "[[X]]" verdict appended, no letter probabilities
          expect(g.reply).not.toMatch(/\n?\[\[[ABC]\]\]$/);
          expect(g.verdictProbs).toBeUndefined();
          expect(g.tokensOut).toBeLessThanOrEqual(24);
          expect(g.verdict).toBe(toVerdict(OUTPUT_FORMATS[format]!.parse(g.reply).verdict, g.order));
        }
      }
      const arena = await runTournament({
        store,
        judge,
        mode: 'pairwise-all',
        models: CONTESTANTS,
        turns: [1],
        promptSet: 'arena',
        settings: { maxTokens: 24 },
        concurrency: 4,
      });
      expect(arena.played).toBe(24);
      const letters = (await store.games.list({ judge: judge.id })).filter((g) => g.parser === 'last@1');
      expect(letters).toHaveLength(24);
      for (const g of letters) {
        expect(g.reply).toMatch(/\[\[[ABC]\]\]$/);
        expect(g.verdict).not.toBe('error');
      }
    } finally {
      await store.close();
    }
  }, 300_000);
});
