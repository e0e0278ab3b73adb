// The judges of a config file (how each is reached, called and priced), and its juries (core/jury.ts) and
// successions: checked by zod, each problem located by loadJsonConfig.
import { z } from 'zod';
import { ArenaError } from '../core/types.ts';
import type { JuryDef } from '../core/jury.ts';
import { JudgeSetup } from '../judges/registry.ts';

/** USD per 1M tokens. */
export const Price = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  /** USD per 1M cached input tokens (default: input) */
  cachedInput: z.number().nonnegative().optional(),
});
export type Price = z.infer<typeof Price>;

/** A judge of a config file: how it is reached and called (JudgeSetup, shared with `arena run`'s flags), plus what ops need. */
export const JudgeConfig = JudgeSetup.extend({
  /** overrides the built-in price table (src/ops/prices.ts) */
  price: Price.optional(),
  concurrency: z.number().int().positive().default(8),
  /** OpenAI Batch API (half price, results within 24 h): submit, then import on a later refresh */
  batch: z.boolean().default(false),
  /** batch mode: how long one refresh waits for its batches before leaving them to the next (default 0) */
  batchWaitS: z.number().nonnegative().default(0),
  /** batch mode: seconds between polls */
  batchPollS: z.number().positive().default(30),
  /** the judge this one succeeds: a refresh plays the bridge first and switches the board (src/ops/refresh/succession.ts) */
  succeeds: z.string().min(1).optional(),
});
export type JudgeConfig = z.infer<typeof JudgeConfig>;

const JuryConfig = z.strictObject({
  /** the jury's judge id is `jury/<name>` */
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" or "-"'),
  /** member judges (ids as stored: `openai/gpt-4o`, `gpt-4`, ...), at least two, each once */
  judges: z
    .array(z.string().min(1))
    .min(2)
    .refine((js) => new Set(js).size === js.length, 'a judge is named twice'),
  rule: z.enum(['majority', 'mean']).default('majority'),
});

export const Juries = z
  .array(JuryConfig)
  .refine((js) => new Set(js.map((j) => j.name)).size === js.length, 'two juries share a name')
  .default([]);

/**
 * A succession's settings (a judge's `succeeds`): the bridge's, as `arena judges succession`'s options, and
 * `minKendall`: the board switches to the new judge only when the bridge's Kendall's tau is at least this.
 */
export const Succession = z
  .strictObject({
    minKendall: z.number().min(-1).max(1).default(0.8),
    precision: z.number().positive().default(0.05),
    ratingPrecision: z.number().positive().default(50),
    maxCalls: z.number().int().nonnegative().optional(),
  })
  .default({ minKendall: 0.8, precision: 0.05, ratingPrecision: 50 });

/** The jury `name` (`jury/<name>` or `<name>`) of a list, or a located error naming the ones there are. */
export function pickJury(file: string, juries: JuryDef[], name: string): JuryDef {
  const bare = name.replace(/^jury\//, '');
  const j = juries.find((x) => x.name === bare);
  if (!j)
    throw new ArenaError(
      `${file}: no jury named "${bare}" (juries: ${juries.map((x) => x.name).join(', ')})`,
      { file },
    );
  return j;
}

/** Refuse a config whose juries have members nothing plays (unplayableMembers), naming the file and each field. */
export function refuseUnplayable(
  file: string,
  c: Parameters<typeof unplayableMembers>[0],
  known: Set<string>,
): void {
  const lost = unplayableMembers(c, known);
  if (lost.length) throw new ArenaError(lost.map((l) => `${file}: ${l}`).join('\n'), { file });
}

/** Jury members that no judge of the config plays and the database (`known`) does not hold: never a verdict. */
export function unplayableMembers(
  c: { judges: { id: string }[]; juries: JuryDef[] },
  known: Set<string>,
): string[] {
  const played = new Set(c.judges.map((j) => j.id));
  return c.juries.flatMap((j, k) =>
    j.judges
      .map((m, i) => [m, i] as const)
      .filter(([m]) => !played.has(m) && !known.has(m))
      .map(
        ([m, i]) =>
          `field "juries[${k}].judges[${i}]": "${m}" is no judge of this config and has no games or verdicts in the database`,
      ),
  );
}
