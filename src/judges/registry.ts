import { ArenaError } from '../core/types.ts';
import type { JudgeProvider } from './judge.ts';

export interface JudgeOptions {
  baseURL?: string;
  apiKey?: string;
}

/**
 * A provider from its "provider/model" name. Providers are loaded lazily, so a run with the
 * mock judge never loads the OpenAI SDK (and nothing pays for native modules it does not use).
 */
export async function createJudge(spec: string, o: JudgeOptions = {}): Promise<JudgeProvider> {
  const slash = spec.indexOf('/');
  const provider = slash < 0 ? spec : spec.slice(0, slash);
  const model = slash < 0 ? '' : spec.slice(slash + 1);
  if (!model) throw new ArenaError(`[judge] "${spec}": expected provider/model, e.g. openai/gpt-4 or mock/random`);
  switch (provider) {
    case 'openai': {
      const { openaiJudge } = await import('./openai.ts');
      return openaiJudge({ model, ...(o.baseURL ? { baseURL: o.baseURL } : {}), ...(o.apiKey ? { apiKey: o.apiKey } : {}) });
    }
    case 'llama-cpp': {
      // the native module is loaded only here, and only when a llama-cpp judge is asked for
      const { llamaCppJudge, parseLlamaSpec } = await import('./llama-cpp/provider.ts');
      return llamaCppJudge(parseLlamaSpec(model));
    }
    case 'mock': {
      const { mockJudge } = await import('./mock.ts');
      return mockJudge(model);
    }
    default:
      throw new ArenaError(`[judge] unknown provider "${provider}" in "${spec}" (known: openai, llama-cpp, mock)`);
  }
}
