// SoftEnt-Cali on the real model: `arena run --reliability softent-cali` stores each game's score, checked against
// llama-cpp-python (tests/reference/llama_cpp_ref.py) on the same files and tokens.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, tmpDir } from '../../support/cli.ts';
import { noMtbench, skipWhy } from '../../support/materials.ts';
import { assertRealModel, llamaCppPython, REAL_GGUF, realModelSkip } from '../../support/real-model.ts';
import { writeSwappedBlocks } from './foundation.ts';
import { realGamesArgs, realGamesSetup, storedGames } from './real-games.ts';

const skip = realModelSkip || skipWhy('real model', noMtbench('the games the real model judges'));

const dir = tmpDir('arena-real-softent-');
/**
 * A shorter reply than the other real-model games (about 19 tokens, not 59): the score is a mean over the reply's
 * tokens whatever their number, and each of them is a decode step and a vocabulary's logits, in both processes.
 */
const MAX_TOKENS = 24;

describe.skipIf(!!skip)('SoftEnt-Cali on the real model, against llama-cpp-python', () => {
  it("arena run --reliability softent-cali stores each game's score (judge's mean reply entropy minus the foundation's), equal to the reference to 1e-4", async () => {
    assertRealModel();
    // no foundation model of SmolLM2 is reachable: a stand-in with the same vocabulary (foundation.ts)
    const base = join(dir, 'foundation.gguf');
    await writeSwappedBlocks(REAL_GGUF, base, 10, 11);
    // terse prompts (real-games.ts): the score's arithmetic is the claim, whatever the prompt says
    const { db: softDb, args: files } = await realGamesSetup(dir, true);
    const judgeSpec = `llama-cpp/${REAL_GGUF}?threads=1&ctx=1024&sequences=1&reuse=off`;
    await arenaOk(
      ['run', '--db', softDb, '--judge', judgeSpec, '--reliability', 'softent-cali'].concat(
        ['--base-gguf', base],
        files,
        realGamesArgs(MAX_TOKENS),
      ),
      { timeoutMs: 300_000 },
    );
    const ours = storedGames(softDb, 'llama-cpp/');
    expect(ours.length).toBe(2);
    const ref = llamaCppPython<{ verdict: string; judge: number; base: number; cali: number }[]>({
      model: REAL_GGUF,
      n_ctx: 1024,
      threads: 1,
      ops: ours.map((g) => ({
        op: 'softent',
        system: g.system,
        user: g.user,
        max_tokens: MAX_TOKENS,
        base,
      })),
    });
    ours.forEach((g, i) => {
      const where = `game ${g.questionId} ${g.order}`;
      expect(g.reliability, where).not.toBeNull();
      expect(Math.abs(g.reliability! - ref[i]!.cali), where).toBeLessThan(1e-4);
      // the stand-in is another model: the calibration is not zero
      expect(Math.abs(ref[i]!.base - ref[i]!.judge), where).toBeGreaterThan(1e-3);
    });
    // listed where the per-game confidence is
    const listed = await arenaJson<{ reliability?: number }[]>([
      'judges',
      '--db',
      softDb,
      '--games',
      ours[0]!.judge,
    ]);
    expect(listed.map((r) => r.reliability)).toEqual(expect.arrayContaining(ours.map((g) => g.reliability)));
    console.log(
      `[softent-cali] ${ours.length} games: stored ${ours.map((g) => g.reliability!.toFixed(6)).join(', ')}; ` +
        `reference ${ref.map((r) => `${r.cali.toFixed(6)} (${r.judge.toFixed(4)} - ${r.base.toFixed(4)})`).join(', ')}`,
    );
  }, 600_000);
});
