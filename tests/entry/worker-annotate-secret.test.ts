// The Worker with ANNOTATE=on refuses a missing or weak ANNOTATE_SECRET (issue 35, item 9), saying why, with the
// same rules as `arena serve --annotate` (src/web/annotate/routes.ts secretProblem).
import { describe, expect, it, vi } from 'vitest';
import { emptyD1 } from '../support/empty-d1.ts';

describe('the Worker annotate secret', () => {
  it('is refused when missing, one character repeated, or a short string repeated', async () => {
    // a new isolate's script: the Worker makes its one app at the first request (an earlier file's stays made)
    vi.resetModules();
    const { default: worker } = await import('../../src/entry/worker.ts');
    const fetch = (secret?: string) =>
      worker.fetch(
        new Request('http://localhost/robots.txt'),
        { DB: emptyD1(), ANNOTATE: 'on', ...(secret === undefined ? {} : { ANNOTATE_SECRET: secret }) },
        {},
      );
    expect(() => fetch()).toThrow(/ANNOTATE_SECRET of at least 32 random characters .*; it is not set/);
    expect(() => fetch('a'.repeat(40))).toThrow(/it has only 1 distinct characters/);
    expect(() => fetch('abcdefghijk'.repeat(4))).toThrow(/it repeats its first 11 characters/);
    // (a good one is served in tests/web/worker.test.ts; serving here would leave the module's app made for the
    // next file sharing this module graph)
  });
});
