// The Worker's warm-up while its script starts (src/entry/worker-warm.ts): every kind of page the home page links
// to, asked of a throwaway app over a D1 that answers from the recorded sample (src/entry/worker-sample.json).
// Each page must render its own view from the sample's stored reports (200: a stale sample, one recorded before a
// report's shape changed, would be a 503 and warm nothing but the error page), no report is computed, nothing is
// logged, and a failure never throws at start-up.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { emptyD1, sampleD1, warmUp, type WorkerSample } from '../../src/entry/worker-warm.ts';
import sample from '../../src/entry/worker-sample.json';
import { openD1Store } from '../../src/storage/d1.ts';
import { NAV } from '../../src/web/site.ts';
import { views } from '../../src/web/views.gen.ts';

const SAMPLE = sample as unknown as WorkerSample;

/** the views rendered (pages and the views they include), in order */
const rendered = vi.hoisted(() => ({ names: [] as string[] }));
vi.mock('../../src/web/views.ts', async (real) => {
  const m = await real<typeof import('../../src/web/views.ts')>();
  const { views } = await import('../../src/web/views.gen.ts');
  type ViewFn = (it: object, e: undefined, include: (name: string, d?: object) => string) => string;
  // views.ts's render, counting each view and each include
  const render = (name: string, data: object): string => {
    rendered.names.push(name);
    return (views as unknown as Record<string, ViewFn>)[name]!(data, undefined, (child, d) =>
      render(child, { ...data, ...d }),
    );
  };
  return { ...m, render };
});

/**
 * Views the sample cannot show: the annotators' own pages (off unless the operator turns /annotate on), the
 * judges page's section on annotators' votes (the published database has none), and the succession page (linked
 * only from a board whose judge was succeeded by a refresh; the sample's database has none).
 */
const NOT_WARMED = ['error', 'annotate', 'annotate-login', 'annotators', 'succession'];

describe('the Worker warm-up', () => {
  // the site's modules afresh, rendering through this file's views.ts; the next file's are new too
  let createApp: typeof import('../../src/web/app.ts').createApp;
  beforeAll(async () => {
    vi.resetModules();
    ({ createApp } = await import('../../src/web/app.ts'));
  });
  afterAll(() => vi.resetModules());
  afterEach(() => vi.restoreAllMocks());

  it('asks every kind of page the home page links to: each nav page, a model page and the API', () => {
    for (const [path] of NAV) expect(SAMPLE.paths).toContain(path);
    expect(SAMPLE.paths.some((p) => p.startsWith('/models/'))).toBe(true);
    expect(SAMPLE.paths.some((p) => p.startsWith('/api/standings?judge='))).toBe(true);
  });

  it('renders every page from the sample with its own view, computing no report and logging nothing', async () => {
    const logged = vi.spyOn(console, 'error');
    const app = createApp({ store: openD1Store(sampleD1(SAMPLE)), reports: 'read', adminToken: 'warm' });
    const asked: [string, number][] = [];
    rendered.names = [];
    await warmUp(async (r) => {
      const res = await app.fetch(r);
      asked.push([new URL(r.url).pathname + new URL(r.url).search, res.status]);
      return res;
    }, SAMPLE.paths);
    // a stale sample (recorded before REPORT_VERSION changed, or before a page read a new report) is a 503 here:
    // record it again with `node --import tsx scripts/worker-sample.ts --db arena.db`
    expect(asked).toEqual(SAMPLE.paths.map((p) => [p, 200]));
    // every view but those ran with data
    const expected = Object.keys(views).filter((v) => !NOT_WARMED.includes(v));
    expect(new Set(rendered.names)).toEqual(new Set(expected));
    const counts = await app.fetch(
      new Request('http://localhost/api/admin/reports', { headers: { Authorization: 'Bearer warm' } }),
    );
    const c = (await counts.json()) as { mode: string; computed: number; read: number; missing: number };
    expect(c).toMatchObject({ mode: 'read', computed: 0, missing: 0 });
    expect(c.read).toBeGreaterThan(10);
    expect(logged).not.toHaveBeenCalled();
  });

  it('runs the pre-rendered page path too: a GET with tracking parameters, a HEAD and a conditional GET, each from its row', async () => {
    const made: ReturnType<typeof createApp>[] = [];
    await warmUp(
      (r) => createApp({ store: openD1Store(sampleD1(SAMPLE)), reports: 'read' }).fetch(r),
      [],
      (d1) => {
        const app = createApp({
          store: openD1Store(d1),
          reports: 'read',
          prerendered: true,
          adminToken: 'warm',
        });
        made.push(app);
        return app.fetch;
      },
    );
    expect(made).toHaveLength(1);
    const counts = await made[0]!.fetch(
      new Request('http://localhost/api/admin/reports', { headers: { Authorization: 'Bearer warm' } }),
    );
    expect(await counts.json()).toMatchObject({ pages: 3, read: 0, computed: 0, missing: 0 });
  });

  it('says a page is not published (503) over a D1 with no rows, never a 500', async () => {
    const app = createApp({ store: openD1Store(emptyD1()), reports: 'read' });
    expect((await app.fetch(new Request('http://localhost/'))).status).toBe(503);
    expect((await app.fetch(new Request('http://localhost/api/standings?judge=nope'))).status).toBe(404);
  });

  it('swallows a failure rather than failing the script start-up', async () => {
    await expect(
      warmUp(() => {
        throw new Error('no');
      }, SAMPLE.paths),
    ).resolves.toBeUndefined();
  });

  it('goes on after a page fails, as every page does under workerd (no Response with a body in global scope)', async () => {
    // each page runs its reads, figures and view, then fails where workerd refuses to make its Response
    const app = createApp({ store: openD1Store(sampleD1(SAMPLE)), reports: 'read', logErrors: false });
    const asked: string[] = [];
    const rendered: string[] = [];
    const refusing = async (r: Request): Promise<Response> => {
      asked.push(new URL(r.url).pathname + new URL(r.url).search);
      const res = await app.fetch(r);
      if (res.status === 200) rendered.push(await res.text());
      throw new Error('Disallowed operation called within global scope');
    };
    const stored: string[] = [];
    await warmUp(refusing, SAMPLE.paths, () => async (r) => {
      stored.push(r.method);
      throw new Error('Disallowed operation called within global scope');
    });
    expect(asked).toEqual(SAMPLE.paths);
    expect(rendered.length).toBeGreaterThanOrEqual(SAMPLE.paths.length - 1);
    expect(stored).toEqual(['GET', 'HEAD', 'GET']);
  });
});
