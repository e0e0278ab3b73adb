// The Worker's warm-up while its script starts (src/entry/worker-warm.ts): it goes through a throwaway app over an
// in-memory D1 with no rows, asks every warm-up path, logs nothing and never throws (a failure only costs the
// first request its compile time, as before).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyD1, WARM_PATHS, warmUp } from '../../src/entry/worker-warm.ts';
import { openD1Store } from '../../src/storage/d1.ts';
import { createApp } from '../../src/web/app.ts';

describe('the Worker warm-up', () => {
  afterEach(() => vi.restoreAllMocks());

  it('asks every warm-up path of an app over an empty D1, settling without a log or an error', async () => {
    const logged = vi.spyOn(console, 'error');
    const app = createApp({ store: openD1Store(emptyD1()), reports: 'read' });
    const asked: [string, number][] = [];
    await warmUp(async (r) => {
      const res = await app.fetch(r);
      asked.push([new URL(r.url).pathname + new URL(r.url).search, res.status]);
      return res;
    });
    // nothing published: the page says so (503), an unknown judge is a 404; never a 500
    expect(asked).toEqual(WARM_PATHS.map((p, i) => [p, i === 0 ? 503 : 404]));
    expect(logged).not.toHaveBeenCalled();
  });

  it('swallows a failure rather than failing the script start-up', async () => {
    await expect(
      warmUp(() => {
        throw new Error('no');
      }),
    ).resolves.toBeUndefined();
  });
});
