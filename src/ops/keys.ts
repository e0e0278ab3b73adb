// The early check of the judges' API keys: a missing key is said before a job imports, generates or
// opens anything (judges/registry.ts openJudge checks again when it opens the judge).
import { apiKeyOf } from '../judges/registry.ts';
import type { JudgeConfig } from './config.ts';
import type { Env } from './deps.ts';

/** Throws the first judge's missing-key error, read from `env` (never the process's own). */
export function requireApiKeys(judges: JudgeConfig[], env: Env): void {
  for (const j of judges) apiKeyOf(j, env);
}
