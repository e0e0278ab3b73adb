// One Game: ask the budget, call the judge (or take a reply fetched earlier), read the reply into a verdict,
// and hand the game to the group commit. Every failed call is an attempt on record, never a verdict: the
// retried ones as they happen, the last one when the call gives up.
import { entropyBits } from '../../core/stats/confidence.ts';
import type { Game } from '../../core/types.ts';
import type { JudgeCallError } from '../../judges/judge.ts';
import { failGame, type GroupCommit } from './commit.ts';
import type { LiveRun } from './live-run.ts';
import type { PlayItem, PlayOptions } from './types.ts';

export async function playGame(
  item: PlayItem,
  o: PlayOptions,
  live: LiveRun,
  group: GroupCommit,
): Promise<void> {
  const { spec, id } = item;
  const { run, signal } = live;
  if (live.stopped) return;
  // the budget may hold the game until calls in flight settle (their real cost frees their reservation)
  if (o.budget && !(await o.budget.reserve(id, spec))) {
    run.skipped++;
    return;
  }
  if (live.stopped) {
    o.budget?.settle(id, 0);
    return;
  }
  let cost: number | null = null;
  const settings = item.settings ?? o.settings;
  const t0 = performance.now();
  const retried: Promise<void>[] = [];
  // a retried call's attempt that the database refuses (a full disk) stops the run like a refused game write: the
  // call goes on, and its reply, paid for, is stored or kept for the spill (never an unhandled rejection)
  const onRetry = ({ error }: { error: Error }) =>
    void retried.push(live.attempt(id, error.message).catch((w: unknown) => live.storageFailed(w)));
  try {
    const reply = await o.call(item, { settings, onRetry, ...(signal ? { signal } : {}) });
    const latencyMs = o.timed === false ? null : Math.round((performance.now() - t0) * 10) / 10;
    if (reply.endpoint) live.noteEndpoint(id, reply.endpoint);
    const tokensIn = reply.tokensIn ?? null;
    const tokensOut = reply.tokensOut ?? null;
    cost = o.costOf ? o.costOf(tokensIn, tokensOut, reply.tokensCached ?? null) : null;
    if (reply.redactions) run.redacted += reply.redactions;
    const { verdict, parser } = o.read(spec, reply.text);
    const game: Game = {
      ...spec,
      id,
      judge: run.judge,
      judgeSettings: settings,
      reply: reply.text,
      verdict,
      parser,
      tokensIn,
      tokensOut,
      ...(reply.tokensCached !== undefined ? { tokensCached: reply.tokensCached } : {}),
      ...(reply.tokensReasoning !== undefined ? { tokensReasoning: reply.tokensReasoning } : {}),
      latencyMs,
      createdAt: Date.now(),
      runId: run.id,
      source: o.source ?? 'run',
      cost,
      ...(reply.verdictProbs
        ? { verdictProbs: reply.verdictProbs, entropy: entropyBits(reply.verdictProbs) }
        : {}),
      ...(reply.reliability !== undefined ? { reliability: reply.reliability } : {}),
    };
    // stored with the games that finished in the same turn of the event loop, before this worker takes
    // another (so that a crash loses at most the games in flight)
    await group.commit(game, cost);
  } catch (e) {
    if (signal?.aborted) return;
    // an empty reply at the allowance was billed: its cost is the run's, though it holds no verdict
    const spent = (e as JudgeCallError)?.kind === 'allowance' ? (e as JudgeCallError).spent : undefined;
    if (spent) {
      cost = o.costOf ? o.costOf(spent.tokensIn, spent.tokensOut, spent.tokensCached ?? null) : null;
      live.countSpent(spent, cost);
    }
    await failGame(live, id, e, spent ? { spent, cost } : undefined);
  } finally {
    const estimated = o.budget?.settle(id, cost);
    if (estimated) run.costEstimated += estimated;
    await Promise.all(retried);
  }
}
