import { createHash } from 'node:crypto';
import { gameIdentity } from '../core/plan.ts';
import type { GameSpec } from '../core/types.ts';

/** A game's id: the first 128 bits of the SHA-256 of its content (core/plan.ts gameIdentity). */
export function gameId(judge: string, settings: object, spec: GameSpec): string {
  return createHash('sha256').update(gameIdentity(judge, settings, spec)).digest('hex').slice(0, 32);
}
