// A governor's share of a bucket that other processes may spend from too (two `arena run`s with one key): what the
// headers reveal of the others' spending, and the part of the bucket this process keeps to. Pure: `now` and the
// samples come from the governor (governor.ts).

/**
 * One answer's view of a bucket: when its call was admitted, what the server said was left after it, and what
 * this governor had charged in all, that call included (calls refused with a 429 left out).
 */
interface ShareSample {
  at: number;
  remaining: number;
  own: number;
}

/** The shortest interval between two samples that a share is measured over (shorter ones are mostly noise). */
const SHARE_SAMPLE_MS = 500;
/** The least share a governor keeps of a bucket others spend from (it still learns when they stop). */
const MIN_SHARE = 0.05;
/**
 * The share a governor starts with when the bucket is (about) full at its first answer: another process may be
 * starting beside it, and both taking all of a full bucket is the worst overdraw there is.
 */
export const START_SHARE = 0.5;
/** The share it starts with when others were already spending at its first answer (the bucket well below full). */
export const JOIN_SHARE = 0.25;
/** Others' spending visible at the first answer, as a part of the bucket, above which a governor joins them. */
const JOIN_SEEN = 0.1;
/**
 * The part of what an answer says is left that a governor leaves alone. A share measured while its calls are on their
 * way runs high (a call is counted here when sent, there when it arrives), so two processes' shares can add up to
 * more than the bucket just as it runs out; alone, the cushion costs nothing but a fifth of a nearly empty bucket.
 */
export const HEADROOM = 0.2;
/** Each measurement moves the estimate this far towards what it measured. */
const WEIGHT = 0.5;
/** A 429 cuts the estimate to this part of itself (once per round: calls admitted after the last cut). */
const CUT = 0.7;

/**
 * This governor's share of what a bucket's spenders spent between two answers' samples: its own charges over the
 * server's drop in `remaining` plus the refill in between (above 1 when the samples' timing overstates it; the
 * estimate keeps to 1). Undefined when the interval is too short, or the bucket may have been full meanwhile (refill
 * lost, so the total is unknown), or nothing was spent.
 */
export function shareBetween(
  a: ShareSample,
  b: ShareSample,
  bucket: { capacity: number; perMs: number },
): number | undefined {
  const dt = b.at - a.at;
  if (dt < SHARE_SAMPLE_MS) return undefined;
  if (a.remaining + bucket.perMs * dt >= bucket.capacity) return undefined;
  const total = a.remaining - b.remaining + bucket.perMs * dt;
  if (total <= 0) return undefined;
  return Math.min(2, Math.max(0, (b.own - a.own) / total));
}

/**
 * The estimate of one governor's share of one bucket: it starts below 1, each measurement moves it halfway there,
 * a 429 cuts it (multiplicative decrease) and the measurements bring it back to what it really spends.
 */
export class ShareEstimate {
  /** the share; 1 until the server has told a remaining */
  share = 1;
  #last?: ShareSample;
  #cutAt = -Infinity;

  /** what one answer told: the sample, and the bucket as the server announces it */
  observe(sample: ShareSample, bucket: { capacity: number; perMs: number }): number {
    const last = this.#last;
    if (!last) {
      // what others spent before this first answer shows as a bucket short of what this one spent
      const othersSpent = bucket.capacity - sample.remaining - sample.own;
      this.share = othersSpent > JOIN_SEEN * bucket.capacity ? JOIN_SHARE : START_SHARE;
      this.#last = sample;
    } else if (sample.at - last.at >= SHARE_SAMPLE_MS) {
      const measured = shareBetween(last, sample, bucket);
      if (measured !== undefined) this.#move(measured);
      this.#last = sample;
    }
    return this.share;
  }

  /** a 429 answered a call admitted at `admittedAt` (at `now`): the estimate was too high, cut it once a round */
  cut(admittedAt: number, now: number): number {
    if (this.#last && admittedAt > this.#cutAt) {
      this.share = Math.max(MIN_SHARE, this.share * CUT);
      this.#cutAt = now;
    }
    return this.share;
  }

  #move(measured: number): void {
    this.share = Math.min(1, Math.max(MIN_SHARE, (1 - WEIGHT) * this.share + WEIGHT * measured));
  }
}
