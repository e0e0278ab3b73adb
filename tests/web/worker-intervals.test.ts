// The Worker's INTERVALS var: a value other than "bootstrap" or "sandwich" is refused with a message
// naming the var (the sandwich leaderboard itself is checked in tests/web/stats-pages.test.ts).
import { describe, expect, it, vi } from 'vitest';

describe('Worker var INTERVALS', () => {
  it('refuses an unknown method, naming the var and the choices', async () => {
    // a new isolate's script: the Worker makes its one app at the first request (an earlier file's stays made)
    vi.resetModules();
    const { default: worker } = await import('../../src/entry/worker.ts');
    expect(() =>
      worker.fetch(new Request('http://localhost/'), { DB: {} as never, INTERVALS: 'jackknife' }, {}),
    ).toThrow(/INTERVALS must be "bootstrap" or "sandwich", got "jackknife"/);
  });
});
