// The result cache counts a stored report's value at the size of the body it was decoded from, without turning it
// back into JSON (JSON.stringify of every report a page reads was milliseconds of a Worker's first request).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyD1 } from '../../src/entry/worker-warm.ts';
import { decodeReport, encodeReport } from '../../src/reports/site/stored.ts';
import { openD1Store } from '../../src/storage/d1.ts';
import { ResultCache } from '../../src/web/result-cache.ts';

describe('the result cache sizes', () => {
  afterEach(() => vi.restoreAllMocks());

  it('counts a stored report at its body, with no JSON.stringify of it', async () => {
    const body = encodeReport({
      rows: Array.from({ length: 200 }, (_, i) => ({ model: `m${i}`, rating: 1000 + i, lo: NaN })),
    });
    const report = decodeReport<object>(body);
    const other = { rows: [{ model: 'x', rating: 1 }] };
    const cache = new ResultCache(openD1Store(emptyD1()));
    const stringify = vi.spyOn(JSON, 'stringify');
    await cache.get('report', async () => report);
    await cache.get('other', async () => other);
    await new Promise((r) => setTimeout(r, 0));
    expect(stringify.mock.calls.map((c) => c[0])).not.toContain(report);
    // anything else is still counted by its JSON (at least the 1 KiB a value counts while it is computed)
    expect(stringify.mock.calls.map((c) => c[0])).toContain(other);
    expect(cache.stats).toEqual({ entries: 2, bytes: 2 * body.length + 1024 });
  });
});
