// The bootstrap's arguments (--rounds, --level, --seed), for every command that draws intervals by resampling.
import { DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED } from '../core/stats/bootstrap.ts';
import { int, num, UsageError } from './format.ts';

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

/** A UsageError unless there are at least `minRounds` rounds and the level lies strictly between 0 and 1. */
export function checkRoundsLevel(rounds: number, level: number, minRounds = 1): void {
  if (rounds < minRounds) throw new UsageError(`--rounds must be at least ${minRounds}, got ${rounds}`);
  if (!(level > 0 && level < 1)) throw new UsageError(`--level must lie between 0 and 1, got ${level}`);
}

/** The bootstrap options from bootArgs' arguments, checked. */
export function bootOptions(args: { rounds?: string; level?: string; seed?: string }) {
  const rounds = int(args.rounds, 'rounds')!;
  const level = num(args.level, 'level')!;
  checkRoundsLevel(rounds, level);
  return { rounds, level, seed: int(args.seed, 'seed')! };
}
