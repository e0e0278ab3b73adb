// A server announcing no limit gets the asked concurrency from the first request. Counted by the server, not the
// clock: calls in flight before the first answer, the most at once, and the rounds the plan took.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTournament } from '../../src/engine/run.ts';
import { importFiles } from '../../src/importers/import.ts';
import { JudgeSetup, openJudge } from '../../src/judges/registry.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { REPO_ROOT, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer, type RequestLogEntry } from '../support/openai-server.ts';

// as the issue measured it: a judge answering in 1 s (long enough for a loaded machine to send a round within it)
const LATENCY_MS = 1000;
const OWN = join(REPO_ROOT, 'questions');

const open: OpenAIServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
async function server(): Promise<OpenAIServer> {
  const s = await startOpenAIServer({ latencyMs: LATENCY_MS, verdict: 'longer' });
  open.push(s);
  return s;
}

/** What the server saw: requests sent before its first answer, the most in flight at once, and the rounds. */
function seen(log: RequestLogEntry[]) {
  const chats = log.filter((e) => e.path === '/v1/chat/completions');
  const firstAnswer = Math.min(...chats.map((e) => e.answeredAt!));
  const inFlight = (t: number) => chats.filter((e) => e.at <= t && e.answeredAt! > t).length;
  // rounds: the longest chain of calls each sent after the answer to the one before (wall time >= rounds x latency)
  const round = new Map<RequestLogEntry, number>();
  for (const e of [...chats].sort((a, b) => a.at - b.at))
    round.set(e, 1 + Math.max(0, ...chats.filter((q) => q.answeredAt! <= e.at).map((q) => round.get(q)!)));
  const rounds = Math.max(...round.values());
  return {
    calls: chats.length,
    beforeFirstAnswer: chats.filter((e) => e.at < firstAnswer).length,
    maxInFlight: Math.max(...chats.map((e) => inFlight(e.at))),
    rounds,
  };
}

describe('a server that announces no limit', { timeout: 60_000 }, () => {
  it('gets 12 calls in flight at once from the first request', async () => {
    const srv = await server();
    const judge = await openJudge(JudgeSetup.parse({ id: 'openai/judge', baseURL: srv.url }), {});
    const calls = Array.from({ length: 12 }, (_, i) =>
      judge.complete({ system: 's', user: `u${i}`, temperature: 0, maxTokens: 16 }),
    );
    await Promise.all(calls);
    expect(seen(srv.log)).toEqual({ calls: 12, beforeFirstAnswer: 12, maxInFlight: 12, rounds: 1 });
  });

  it('a run of 96 games at concurrency 32 plays in 3 rounds of 32', async () => {
    const srv = await server();
    const dir = tmpDir('arena-no-headers-');
    const store = openSqliteStore(join(dir, 'arena.db'));
    try {
      await importFiles(store, {
        questions: [join(OWN, 'arena.jsonl')],
        answers: readdirSync(join(OWN, 'answers')).map((f) => join(OWN, 'answers', f)),
        prompts: [join(OWN, 'judge_prompts.jsonl')],
      });
      const judge = await openJudge(JudgeSetup.parse({ id: 'openai/judge', baseURL: srv.url }), {});
      // 2 models x 24 questions x 2 turns x 2 orders
      const run = await runTournament({
        store,
        judge,
        mode: 'pairwise-all',
        models: ['arena-sage', 'arena-swift'],
        promptSet: 'arena',
        turns: [1, 2],
        concurrency: 32,
      });
      expect(run.played).toBe(96);
      expect(seen(srv.log)).toEqual({ calls: 96, beforeFirstAnswer: 32, maxInFlight: 32, rounds: 3 });
    } finally {
      await store.close();
    }
  });
});
