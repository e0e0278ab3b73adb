// Gates for withRetry: one endpoint's rate governor, or several endpoints serving one judge, each with its own.
import type { JudgeCallError, JudgeProvider, JudgeRequest } from './judge.ts';
import type { RateGovernor } from './governor.ts';
import type { CallGate, GateTicket } from './retry.ts';

/** Each attempt admitted by `governor` (its cost learned from the reply's prompt tokens). */
export function governorGate(governor: RateGovernor): CallGate {
  return {
    async admit(req: JudgeRequest): Promise<GateTicket> {
      const a = await governor.admit(governor.cost(req), req.signal);
      return {
        settle(outcome) {
          if ('reply' in outcome) governor.calibrate(req, outcome.reply.tokensIn);
          a.settle(outcome);
        },
      };
    },
  };
}

export interface Endpoint {
  /** how the endpoint is named in logs and records (its base URL) */
  name: string;
  provider: JudgeProvider;
  governor: RateGovernor;
  /** a share of the calls when several could take one at once (default 1) */
  weight?: number;
}

/** Consecutive faults (not 429s) that take an endpoint out; the first cool-down, doubled each time again. */
const FAULTS_TO_COOL = 3;
const COOL_MS = 30_000;

/**
 * Several endpoints serving one judge: each attempt goes to the endpoint that can take it soonest (its governor's
 * wait; ties go to the one with the least sent per weight); one that fails FAULTS_TO_COOL times in a row is
 * taken out for a cool-down and then tried again. The reply names the endpoint that answered.
 */
export function endpointPool(endpoints: Endpoint[], log?: (line: string) => void): CallGate {
  const states = endpoints.map((e) => ({ e, faults: 0, coolUntil: 0, coolings: 0, sent: 0 }));
  const pick = (req: JudgeRequest) => {
    const now = performance.now();
    const open = states.filter((s) => s.coolUntil <= now);
    if (!open.length) return states.reduce((a, b) => (b.coolUntil < a.coolUntil ? b : a));
    let best = open[0]!;
    let bestKey = [Infinity, Infinity];
    for (const s of open) {
      const key = [s.e.governor.estimateWaitMs(s.e.governor.cost(req)), s.sent / (s.e.weight ?? 1)];
      if (key[0]! < bestKey[0]! || (key[0] === bestKey[0] && key[1]! < bestKey[1]!)) {
        best = s;
        bestKey = key;
      }
    }
    return best;
  };
  return {
    async admit(req: JudgeRequest): Promise<GateTicket> {
      const s = pick(req);
      const g = s.e.governor;
      s.sent++;
      const a = await g.admit(g.cost(req), req.signal);
      let done = false;
      return {
        provider: {
          id: s.e.provider.id,
          complete: async (r) => ({ ...(await s.e.provider.complete(r)), endpoint: s.e.name }),
        },
        settle(outcome) {
          if (done) return;
          done = true;
          a.settle(outcome);
          if ('reply' in outcome) {
            g.calibrate(req, outcome.reply.tokensIn);
            s.faults = 0;
            s.coolings = 0;
            return;
          }
          const e = outcome.error as JudgeCallError;
          if (e.status === 429 || req.signal?.aborted) return;
          if (++s.faults >= FAULTS_TO_COOL && s.coolUntil <= performance.now()) {
            const ms = COOL_MS * 2 ** Math.min(s.coolings++, 5);
            s.coolUntil = performance.now() + ms;
            s.faults = 0;
            log?.(
              `[${s.e.provider.id}] ${s.e.name} taken out for ${(ms / 1000).toFixed(0)} s after ${FAULTS_TO_COOL} faults in a row: ${e.message}`,
            );
          }
        },
      };
    },
  };
}
