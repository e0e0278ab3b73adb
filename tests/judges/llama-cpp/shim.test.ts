// The node-llama-cpp shim's version guard and internals check (src/judges/llama-cpp/shim.ts), on the installed
// node-llama-cpp and a tiny generated model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertInternals,
  installedNodeLlamaCppVersion,
  SUPPORTED_NODE_LLAMA_CPP,
  unsupportedVersion,
} from '../../../src/judges/llama-cpp/shim.ts';
import { llamaRuntime } from '../../../src/judges/llama-cpp/loader.ts';
import { REPO_ROOT, tmpDir } from '../../support/cli.ts';
import { writeTinyLlama } from './gguf-writer.ts';

describe('node-llama-cpp version guard', () => {
  it("reads the installed version from the package's own package.json", () => {
    const pkg = JSON.parse(
      readFileSync(join(REPO_ROOT, 'node_modules', 'node-llama-cpp', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(installedNodeLlamaCppVersion()).toBe(pkg.version);
    // the installed one is supported (otherwise every llama test would fail at load with the message below)
    expect(unsupportedVersion(installedNodeLlamaCppVersion())).toBeUndefined();
  });

  it(`accepts ${SUPPORTED_NODE_LLAMA_CPP.range} and refuses anything else with a message naming the version and the range`, () => {
    for (const v of ['3.22.0', '3.22.1', '3.40.12', '3.99.0-beta.2'])
      expect(unsupportedVersion(v), v).toBeUndefined();
    for (const v of ['3.21.9', '3.14.0', '2.8.16', '4.0.0', '4.0.0-beta.1', '10.0.0', 'latest', '']) {
      const why = unsupportedVersion(v);
      expect(why, v).toBeDefined();
      expect(why).toContain(`node-llama-cpp ${v} is installed`);
      expect(why).toContain('>=3.22.0 <4.0.0');
    }
  });
});

describe('node-llama-cpp internals', () => {
  it('a real context and sequence have every internal the shim reads; a context without them is refused at load, naming them', async () => {
    const dir = tmpDir('arena-shim-');
    const gguf = join(dir, 'tiny.gguf');
    writeTinyLlama(gguf, { seed: 3 });
    // the process's CPU runtime (see loader.ts; started once, never disposed), a model and context of our own
    const llama = await llamaRuntime(false, (m) => new Error(m));
    const model = await llama.loadModel({ modelPath: gguf, gpuLayers: 0 });
    const context = await model.createContext({ contextSize: 256, threads: 1 });
    try {
      const seq = context.getSequence();
      expect(() => assertInternals(context, seq)).not.toThrow();
      expect(() => assertInternals({} as never, {} as never, '3.99.0')).toThrow(
        'node-llama-cpp 3.99.0 lacks LlamaContext._queuedDecodeSequenceIds, LlamaContext._queuedDecodes, LlamaContextSequence._copyStateFromOtherSequence (supported: >=3.22.0 <4.0.0)',
      );
    } finally {
      await context.dispose();
      await model.dispose();
    }
  });
});
