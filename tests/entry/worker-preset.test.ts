// The Worker makes its app while the script starts, so a new isolate's first request only reads and renders; a
// Worker with optional vars makes its own at the first request.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { emptyD1 } from '../support/empty-d1.ts';

const made = vi.hoisted(() => ({ apps: 0, routers: [] as { activeRouter: unknown }[] }));
vi.mock('../../src/web/app.ts', async (real) => {
  const m = await real<typeof import('../../src/web/app.ts')>();
  return {
    ...m,
    createApp: (...a: Parameters<typeof m.createApp>) => {
      made.apps++;
      const app = m.createApp(...a);
      made.routers.push(app.router as never);
      return app;
    },
  };
});

describe('the Worker app made at start-up', () => {
  // a new isolate's script, with this file's createApp (its app is made once per isolate); the next file's is new too
  beforeAll(() => vi.resetModules());
  afterAll(() => vi.resetModules());
  it('serves the first request of a Worker without optional vars from the app made while the script started', async () => {
    const { default: worker } = await import('../../src/entry/worker.ts');
    // the preset app
    expect(made.apps).toBe(1);
    // the preset's route matcher is built (hono builds it on an app's first match; it throws until then)
    expect(() => made.routers[0]!.activeRouter).not.toThrow();
    // wrangler.toml's [vars] set ANNOTATE = "off": the value that changes nothing takes the preset app too
    const r = await worker.fetch(
      new Request('http://localhost/robots.txt'),
      { DB: emptyD1(), ANNOTATE: 'off' },
      {},
    );
    expect(r.status).toBe(200);
    // the first request's D1 is the one the preset app reads: nothing published there, so the page says so (the
    // details page, which reads a report across judges; the home page of an empty D1 has no judge to read)
    const home = await worker.fetch(new Request('http://localhost/leaderboard'), { DB: emptyD1() }, {});
    expect(home.status).toBe(503);
    expect(await home.text()).toMatch(/has not been published yet/);
    expect(made.apps).toBe(1);
  });

  it('takes the preset app only when every optional var is absent or at the value that changes nothing', async () => {
    const { presetFits } = await import('../../src/entry/worker.ts');
    const DB = emptyD1();
    expect(presetFits({ DB })).toBe(true);
    expect(presetFits({ DB, ANNOTATE: 'off' })).toBe(true);
    expect(presetFits({ DB, ANNOTATE: 'on' })).toBe(false);
    expect(presetFits({ DB, SITE_URL: 'https://example.org' })).toBe(false);
    expect(presetFits({ DB, INTERVALS: 'sandwich' })).toBe(false);
    expect(presetFits({ DB, ADMIN_TOKEN: 't' })).toBe(false);
  });
});
