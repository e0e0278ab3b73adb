// src/judges/llama-cpp/loader.ts: one llama.cpp runtime per process, started once (its binary check costs seconds of
// CPU) and kept when a judge closes; on the real runtime and a tiny generated GGUF.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { llamaRuntime, loadModel } from '../../../src/judges/llama-cpp/loader.ts';
import { llamaCppJudge } from '../../../src/judges/llama-cpp/provider.ts';
import { tmpDir } from '../../support/cli.ts';
import { writeTinyLlama } from './gguf-writer.ts';

const dir = tmpDir('arena-llama-loader-');
const TINY = join(dir, 'tiny.gguf');
writeTinyLlama(TINY, { seed: 7 });
const fail = (m: string) => new Error(m);
const PROMPT = {
  system: 'Judge.',
  user: 'Which is better? [A] blue [B] green',
  temperature: 0,
  maxTokens: 16,
};

describe('llama-cpp loader', () => {
  it('every model loaded in the process shares one runtime, which a closed judge leaves running', async () => {
    const first = llamaCppJudge({ modelPath: TINY, threads: 1, contextSize: 512, sequences: 2 });
    const a = await loadModel({ modelPath: TINY, contextSize: 512 }, fail);
    const b = await loadModel({ modelPath: TINY, contextSize: 256 }, fail);
    const cpu = await loadModel({ modelPath: TINY, contextSize: 256, gpu: false }, fail);
    try {
      const reply = await first.complete(PROMPT);
      expect(reply.text).toMatch(/\[\[[ABC]\]\]$/);
      expect(b.llama).toBe(a.llama);
      expect(await llamaRuntime('auto', fail)).toBe(a.llama);
      expect(await llamaRuntime(false, fail)).toBe(cpu.llama);
      // where node-llama-cpp finds no GPU, 'auto' and CPU-only are one runtime (the same binary)
      if (a.llama.gpu === false) expect(cpu.llama).toBe(a.llama);
      await first.close();
      expect(a.llama.disposed).toBe(false);
      // a judge opened after another closed runs on the same runtime, with the same replies
      const second = llamaCppJudge({ modelPath: TINY, threads: 1, contextSize: 512, sequences: 2 });
      try {
        expect(await second.complete(PROMPT)).toEqual(reply);
      } finally {
        await second.close();
      }
    } finally {
      for (const m of [a, b, cpu]) {
        await m.context.dispose();
        await m.model.dispose();
      }
    }
  });
});
