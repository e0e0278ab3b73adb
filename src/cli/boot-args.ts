// The bootstrap's arguments (--rounds, --level, --seed), for every command that draws intervals by resampling.
import { DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED } from '../core/stats/bootstrap.ts';
import { int, num } from './format.ts';

export const bootArgs = {
  rounds: { type: 'string', default: String(DEFAULT_ROUNDS), description: 'bootstrap rounds' },
  level: {
    type: 'string',
    default: String(DEFAULT_LEVEL),
    description: 'interval level (0.95: the 2.5% and 97.5% percentiles)',
  },
  seed: {
    type: 'string',
    default: String(DEFAULT_SEED),
    description: 'seed of the resampling (same seed, same intervals)',
  },
} as const;

/** The bootstrap options from bootArgs' arguments (in range by cli/validate.ts). */
export function bootOptions(args: { rounds?: string; level?: string; seed?: string }) {
  return {
    rounds: int(args.rounds, 'rounds')!,
    level: num(args.level, 'level')!,
    seed: int(args.seed, 'seed')!,
  };
}
