// Waiting in a test for something another process does: poll a condition until it holds, or fail naming it.

/** Resolves once `cond()` holds (checked every 25 ms); rejects after `timeoutMs`, saying what it waited for. */
export async function until(cond: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
