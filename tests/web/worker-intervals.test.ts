// The Worker's INTERVALS var: a value other than "bootstrap" or "sandwich" is refused with a message
// naming the var (the sandwich leaderboard itself is checked in tests/web/stats-pages.test.ts).
import { describe, expect, it } from 'vitest';
import worker from '../../src/entry/worker.ts';

describe('Worker var INTERVALS', () => {
  it('refuses an unknown method, naming the var and the choices', () => {
    expect(() =>
      worker.fetch(new Request('http://localhost/'), { DB: {} as never, INTERVALS: 'jackknife' }, {}),
    ).toThrow(/INTERVALS must be "bootstrap" or "sandwich", got "jackknife"/);
  });
});
