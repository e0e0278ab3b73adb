// A local judge is named by its model (general.name or file name), a content hash and reply-changing options,
// never its path: a moved file is the same judge, exports get plain names, an empty export is an error.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ggufName, modelIdentity } from '../../../src/judges/gguf-identity.ts';
import { llamaJudgeId, parseLlamaSpec } from '../../../src/judges/llama-cpp/provider.ts';
import { openSqliteStore } from '../../../src/storage/sqlite.ts';
import { arenaOk, playOwn, runArena, tmpDir } from '../../support/cli.ts';
import { writeTinyLlama } from './gguf-writer.ts';

const SHARED = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  'shared',
  'models',
  'llama-2-tiny-random.gguf',
);
const REAL =
  process.env.LLAMA2_TINY_GGUF ??
  (existsSync(SHARED) ? SHARED : '/work/shared/models/llama-2-tiny-random.gguf');
const dir = tmpDir('arena-llama-id-');

describe('a local judge id', () => {
  it('is the GGUF name and a content hash: the same for a copy elsewhere, different for other weights, never the path', () => {
    const a = join(dir, 'a', 'deep', 'path', 'model.gguf');
    const b = join(dir, 'elsewhere', 'renamed.gguf');
    mkdirSync(join(dir, 'a', 'deep', 'path'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'));
    writeTinyLlama(a, { seed: 3 });
    copyFileSync(a, b);
    const c = join(dir, 'other.gguf');
    writeTinyLlama(c, { seed: 4 });
    const idA = llamaJudgeId({ modelPath: a });
    expect(idA).toMatch(/^llama-cpp\/mt-arena-tiny-random-llama@[0-9a-f]{10}$/);
    expect(llamaJudgeId({ modelPath: b })).toBe(idA);
    expect(llamaJudgeId({ modelPath: c })).not.toBe(idA);
    expect(idA).not.toContain(dir);
    // reply-changing options are part of it, speed options are not; an adapter is named like a model
    expect(llamaJudgeId({ modelPath: b, grammar: false, seed: 7, threads: 3, sequences: 2 })).toBe(
      `${idA}?grammar=off&seed=7`,
    );
    // flash attention changes the CPU's numbers (options.ts); off is the default
    expect(llamaJudgeId({ modelPath: b, flashAttention: true })).toBe(`${idA}?flash=on`);
    expect(llamaJudgeId({ modelPath: b, flashAttention: false })).toBe(idA);
    expect(parseLlamaSpec(`${a}?flash=on`).flashAttention).toBe(true);
    const lora = join(dir, 'elsewhere', 'my adapter.gguf');
    writeFileSync(lora, 'not really an adapter, but a file with content');
    expect(llamaJudgeId({ modelPath: a, lora: [lora] })).toMatch(
      new RegExp(`^${idA.replace(/[.?]/g, '\\$&')}\\?lora=my-adapter%40[0-9a-f]{10}$`),
    );
  });

  it('falls back to the file name when the GGUF has no general.name; reads the name from a real Llama 2 GGUF', () => {
    expect(ggufName(Buffer.from('not a gguf at all, just text'))).toBeUndefined();
    const noName = join(dir, 'Nameless Model v1.gguf');
    writeFileSync(noName, Buffer.concat([Buffer.from('GGUF'), Buffer.from([3, 0, 0, 0]), Buffer.alloc(16)]));
    expect(modelIdentity(noName).name).toBe('Nameless-Model-v1');
    if (existsSync(REAL)) expect(modelIdentity(REAL).name).toBe('LLaMA-v2');
  });
});

describe('arena export fastchat of a local judge', { timeout: 300_000 }, () => {
  it('writes <name>@<hash>_pair.jsonl into --out (no directories made from a path); no games is an error', async () => {
    const model = existsSync(REAL) ? REAL : join(dir, 'tiny.gguf');
    if (!existsSync(model)) writeTinyLlama(model, { seed: 5 });
    const db = join(tmpDir(), 'arena.db');
    await playOwn(
      db,
      `llama-cpp/${model}?threads=1&sequences=2`,
      'arena-sage,arena-echo',
      ['--turns', '1', '--max-tokens', '8', '--concurrency', '4'],
      { timeoutMs: 240_000 },
    );
    const id = llamaJudgeId({ modelPath: model });
    const judges = JSON.parse(await arenaOk(['judges', '--db', db, '--json'])) as {
      judge: string;
      games: number;
    }[];
    expect(judges).toEqual([{ judge: id, games: 48, votes: 0 }]);
    const out = join(tmpDir(), 'model_judgment');
    const text = await arenaOk(['export', 'fastchat', '--db', db, '--judge', id, '--out', out]);
    const name = `${id.slice('llama-cpp/'.length)}_pair.jsonl`;
    expect(readdirSync(out)).toEqual([name]);
    expect(text).toContain(`${name}: 24 lines`);
    const lines = readFileSync(join(out, name), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { g1_winner: string });
    expect(lines).toHaveLength(24);

    // a judge with only recorded votes has nothing FastChat's judgment files can hold: an error, no folder
    const store = openSqliteStore(db);
    await store.importBundle({
      votes: [
        {
          source: 'votes.csv',
          items: [
            {
              judge: 'gpt-4',
              voter: 'gpt4_pair',
              questionId: 1001,
              turn: 1,
              model1: 'arena-sage',
              model2: 'arena-echo',
              winner: 'model_1',
              line: 2,
            },
          ],
        },
      ],
    });
    await store.close();
    const empty = join(tmpDir(), 'none');
    const r = await runArena(['export', 'fastchat', '--db', db, '--judge', 'gpt-4', '--out', empty]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/judge "gpt-4" has no games \(only recorded votes/);
    expect(existsSync(empty)).toBe(false);
    const typo = await runArena(['export', 'fastchat', '--db', db, '--judge', 'gpt4', '--out', empty]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/unknown judge "gpt4" \(did you mean "gpt-4"\?\)/);
  });
});
