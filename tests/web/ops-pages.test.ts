// /refreshes, /checkpoints and the refresh banner in-process over a file written by `arena refresh` and
// `arena checkpoints run`: the numbers equal what the CLI reports and the servers logged.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { serveNode } from '../../src/entry/node.ts';
import { HAVE_CHROMIUM, launchChromium, SHOTS, tablesWithoutHeaders } from '../support/chromium.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer, type VerdictPolicy } from '../support/openai-server.ts';
import { answerFile, HAVE_MTBENCH, MTBENCH, writeConfig } from '../ops/helpers.ts';
import { localD1, wranglerDev } from './support.ts';
import { linkedPages } from '../../src/web/pages.ts';

interface RefreshApiRow {
  id: string;
  startedAt: number;
  status: string;
  reasons: string[];
  newModels: string[];
  played: number;
  failed: number;
  skipped: number;
  calls: number;
  cost: number;
  line: string;
}
interface Interval {
  mean: number;
  lo: number;
  hi: number;
  n: number;
}
interface CliRow {
  judge: string;
  checkpoint: string;
  step: number;
  winRate: Interval;
  vsPrevious: (Interval & { against: string }) | null;
  vsBest: (Interval & { against: string }) | null;
  best: boolean;
}
type ApiCheckpointRow = Record<string, string | number | boolean | null>;

// the checkpoints: four MT-Bench models stand in for four checkpoints of one run
const CKPTS = [
  { name: 'step-100', step: 100, model: 'llama-13b' },
  { name: 'step-200', step: 200, model: 'alpaca-13b' },
  { name: 'step-300', step: 300, model: 'vicuna-13b-v1.2' },
  { name: 'step-400', step: 400, model: 'claude-v1' },
];

describe.skipIf(!HAVE_MTBENCH)('site: refreshes and checkpoints', () => {
  const dir = tmpDir('arena-web-ops-');
  const db = join(dir, 'arena.db');
  let store: SqliteStore;
  let app: ReturnType<typeof createApp>;
  const get = (path: string) => app.request(path);
  const json = async <T>(path: string): Promise<T> => {
    const r = await get(path);
    expect(r.status, `${path}: ${r.status}`).toBe(200);
    return (await r.json()) as T;
  };
  const html = async (path: string) => {
    const r = await get(path);
    expect(r.status, path).toBe(200);
    return r.text();
  };

  /** One `arena refresh` against a fresh test server; returns its exit code and the chat calls the server saw. */
  async function refresh(
    verdict: VerdictPolicy,
    models: string[],
  ): Promise<{ code: number | null; calls: number }> {
    const srv = await startOpenAIServer({ latencyMs: 2, verdict });
    try {
      // pairwise-all among models that are never the checkpoints' baseline, so the refresh judge stays off the checkpoint report
      const r = await runArena([
        'refresh',
        '--config',
        writeConfig(dir, { url: srv.url, models, extra: { publish: { showCost: true } } }),
      ]);
      return { code: r.code, calls: srv.log.filter((e) => e.path === '/v1/chat/completions').length };
    } finally {
      await srv.close();
    }
  }

  let ckptCfg = '';
  let first: { code: number | null; calls: number };
  let second: { code: number | null; calls: number };
  let longer: OpenAIServer;
  let hash: OpenAIServer;

  beforeAll(async () => {
    first = await refresh('longer', ['alpaca-13b', 'claude-v1']);
    [longer, hash] = await Promise.all([
      startOpenAIServer({ verdict: 'longer', latencyMs: 2 }),
      startOpenAIServer({ verdict: 'hash', latencyMs: 2 }),
    ]);
    ckptCfg = join(dir, 'checkpoints.json');
    writeFileSync(
      ckptCfg,
      JSON.stringify({
        db: 'arena.db',
        series: 'sft-1',
        questions: [join(MTBENCH, 'question.jsonl')],
        references: [join(MTBENCH, 'reference_answer', 'gpt-4.jsonl')],
        prompts: [join(MTBENCH, 'judge_prompts.jsonl')],
        questionIds: [81, 82, 83, 84, 85, 86],
        turns: [1],
        baseline: { model: 'gpt-3.5-turbo', answers: answerFile('gpt-3.5-turbo') },
        checkpoints: CKPTS.map((c) => ({ ...c, answers: answerFile(c.model) })),
        judges: [
          { id: 'openai/judge-longer', baseURL: longer.url, price: { input: 1, output: 2 } },
          { id: 'openai/judge-hash', baseURL: hash.url, price: { input: 1, output: 2 } },
        ],
      }),
    );
    const run = await runArena(['checkpoints', 'run', '--config', ckptCfg]);
    expect(run.code, run.stderr).toBe(0);
    // a new model whose every judgment is unparsable: the error rate jumps, the refresh is degraded
    second = await refresh('unparsable', ['alpaca-13b', 'claude-v1', 'llama-13b']);
    store = openSqliteStore(db);
    app = createApp({ store, bootstrapRounds: 50, cache: { checkMs: 0 } });
  }, 300_000);
  afterAll(async () => {
    await store?.close();
    await Promise.all([longer?.close(), hash?.close()]);
  });

  it('/api/refreshes: newest first, the degraded reasons as stored, games and calls as the test servers counted them', async () => {
    expect(first.code).toBe(0);
    expect(second.code).toBe(3);
    const rows = await json<RefreshApiRow[]>('/api/refreshes');
    expect(rows.map((r) => r.status)).toEqual(['degraded', 'ok']);
    const [deg, ok] = rows as [RefreshApiRow, RefreshApiRow];
    // the same records the CLI lists
    const cli = JSON.parse((await runArena(['refreshes', '--db', db, '--json'])).stdout) as {
      id: string;
      status: string;
      degraded: string;
      cost: number;
      line: string;
    }[];
    expect(rows.map((r) => [r.id, r.status, r.reasons.join('; '), r.cost, r.line])).toEqual(
      cli.map((r) => [r.id, r.status, r.degraded, r.cost, r.line]),
    );
    expect(deg.reasons).toEqual(['openai/judge: error rate 0.0% -> 100.0% (bound +10.0%)']);
    // llama-13b's answers came in with the checkpoints run, so the refresh did not import them as new
    expect(deg.newModels).toEqual([]);
    // 1 pair x 6 questions x turn 1 x 2 orders; then llama-13b's 2 new pairs
    expect([ok.played, ok.failed, ok.calls]).toEqual([12, 0, first.calls]);
    expect(first.calls).toBe(12);
    expect(deg.calls).toBe(second.calls);
    expect(deg.played + deg.failed).toBe(24);
    expect(ok.cost).toBeGreaterThan(0);
    expect((await json<RefreshApiRow[]>('/api/refreshes?limit=1')).map((r) => r.id)).toEqual([deg.id]);
    expect((await get('/api/refreshes?limit=0')).status).toBe(400);
    const csv = await (await get('/api/refreshes.csv')).text();
    expect(csv.split('\r\n')[0]).toBe(
      'id,startedAt,finishedAt,status,reasons,newModels,changedAnswers,played,failed,skipped,calls,cost,estCost,line',
    );
    expect(csv.trim().split('\r\n')).toHaveLength(3);
    expect(csv).toContain('error rate 0.0% -> 100.0%');
  });

  it.skipIf(!HAVE_CHROMIUM)(
    'in Chromium: screenshots at desktop and phone widths; nothing overflows the phone screen; tables have captions',
    async () => {
      const server = await serveNode(store, { port: 0, bootstrapRounds: 50 });
      const browser = await launchChromium();
      mkdirSync(SHOTS, { recursive: true });
      try {
        // one page, resized: a second context would start a second renderer process
        const page = await browser.newPage();
        for (const [size, width, height] of [
          ['desktop', 1280, 900],
          ['phone', 390, 844],
        ] as const) {
          await page.setViewportSize({ width, height });
          for (const [name, path] of [
            ['ops-leaderboard', '/'],
            ['ops-refreshes', '/refreshes'],
            ['ops-checkpoints', '/checkpoints'],
          ] as const) {
            await page.goto(server.url + path);
            await page.waitForLoadState('networkidle');
            const overflow = await page.evaluate(
              () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
            );
            expect(overflow, `${name} at ${size}`).toBeLessThanOrEqual(0);
            const bad = await tablesWithoutHeaders(page);
            expect(bad, path).toBe(0);
            if (name === 'ops-checkpoints') {
              // the chart loaded: the SVG from the app itself, the narrow one on the phone
              const img = page.getByRole('img', { name: /win rate against the baseline per step/ });
              await img.scrollIntoViewIfNeeded();
              await expect
                .poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth))
                .toBe(size === 'phone' ? 360 : 720);
            }
            await page.screenshot({ path: join(SHOTS, `${name}-${size}.png`), fullPage: true });
          }
        }
      } finally {
        await browser.close();
        await server.close();
      }
    },
    120_000,
  );

  it('the same on the Worker under wrangler dev, over a local D1 filled by `arena publish`', async () => {
    const persist = await localD1(dir);
    const pub = await runArena(['publish', '--db', db, '--persist-to', persist], { timeoutMs: 180_000 });
    expect(pub.code, pub.stderr).toBe(0);
    expect(pub.stdout + pub.stderr).toMatch(/pages: [1-9]\d* rendered/);
    const dev = await wranglerDev(persist, { BOOTSTRAP_ROUNDS: '50', ADMIN_TOKEN: WORKER_ADMIN });
    try {
      for (const path of [
        '/api/refreshes',
        '/api/checkpoints',
        '/api/checkpoints.csv?series=sft-1',
        '/api/refreshes.csv',
      ]) {
        const r = await fetch(dev.url + path);
        expect(r.status, path).toBe(200);
        expect(await r.text(), path).toBe(await (await get(path)).text());
      }
      const page = await (await fetch(`${dev.url}/`)).text();
      expect(page).toContain('The last refresh is degraded');
      expect(await (await fetch(`${dev.url}/checkpoints`)).text()).toContain('Series sft-1 vs gpt-3.5-turbo');
      const svg = await fetch(`${dev.url}/charts/checkpoints.svg?series=sft-1`);
      expect(svg.status).toBe(200);
      expect(await svg.text()).toContain('>openai/judge-longer</text>');
      expect((await fetch(`${dev.url}/api/checkpoints?series=nope`)).status).toBe(404);
      await prerenderedAsLive(dev.url);
    } finally {
      await dev.stop();
    }
  }, 300_000);

  it('the leaderboard warns while the last refresh is degraded, and stops once a healthy refresh follows', async () => {
    const page = await html('/');
    expect(page).toContain('class="banner" role="alert"');
    expect(page).toContain('The last refresh is degraded');
    expect(page).toContain('openai/judge: error rate 0.0% -&gt; 100.0% (bound +10.0%)');
    const list = await html('/refreshes');
    expect(list).toContain('Why it is degraded');
    expect(list).toMatch(/<td class="l warn">degraded<\/td>/);

    // nothing new: zero calls, status ok; the site sees it without a restart (the cache fingerprint moved)
    const third = await refresh('longer', ['alpaca-13b', 'claude-v1', 'llama-13b']);
    expect(third).toEqual({ code: 0, calls: 0 });
    const rows = await json<RefreshApiRow[]>('/api/refreshes');
    expect(rows.map((r) => [r.status, r.calls])).toEqual([
      ['ok', 0],
      ['degraded', 24],
      ['ok', 12],
    ]);
    expect(await html('/')).not.toContain('class="banner"');
  }, 120_000);

  it('/api/checkpoints equals `arena checkpoints report`, row by row and interval by interval', async () => {
    const cli = JSON.parse(
      (await runArena(['checkpoints', 'report', '--config', ckptCfg, '--json'])).stdout,
    ) as { rows: CliRow[]; best: Record<string, string>; tiedBest: Record<string, string[]> };
    const site = await json<ApiCheckpointRow[]>('/api/checkpoints?series=sft-1');
    expect(site).toHaveLength(8);
    expect(cli.rows).toHaveLength(8);
    for (const c of cli.rows) {
      const s = site.find((r) => r.judge === c.judge && r.checkpoint === c.checkpoint)!;
      expect(s, `${c.judge} ${c.checkpoint}`).toBeDefined();
      expect([s.series, s.baseline, s.step, s.n]).toEqual(['sft-1', 'gpt-3.5-turbo', c.step, c.winRate.n]);
      expect(c.winRate.n).toBe(6);
      expect([s.winRate, s.winRateLo, s.winRateHi]).toEqual([c.winRate.mean, c.winRate.lo, c.winRate.hi]);
      expect([s.previous, s.vsPrevious, s.vsPreviousLo, s.vsPreviousHi]).toEqual(
        c.vsPrevious
          ? [c.vsPrevious.against, c.vsPrevious.mean, c.vsPrevious.lo, c.vsPrevious.hi]
          : [null, null, null, null],
      );
      expect([s.bestSoFar, s.vsBest, s.vsBestLo, s.vsBestHi]).toEqual(
        c.vsBest ? [c.vsBest.against, c.vsBest.mean, c.vsBest.lo, c.vsBest.hi] : [null, null, null, null],
      );
      expect(s.best).toBe(c.best);
    }
    // each judge names its best checkpoint, or none on a tie (on 6 questions a tie at the top is likely)
    const judged = [...Object.keys(cli.best), ...Object.keys(cli.tiedBest)].sort();
    expect(judged).toEqual(['openai/judge-hash', 'openai/judge-longer']);
    // the refresh's judge never met the baseline: it is not on the report
    expect(new Set(site.map((r) => r.judge))).toEqual(new Set(judged));
    // all series without a filter; an unknown series is a 404; CSV has the same columns
    expect(await json<ApiCheckpointRow[]>('/api/checkpoints')).toEqual(site);
    expect((await get('/api/checkpoints?series=nope')).status).toBe(404);
    const csv = (await (await get('/api/checkpoints.csv?series=sft-1')).text()).trim().split('\r\n');
    expect(csv[0]).toBe(
      'series,baseline,judge,checkpoint,step,model,n,winRate,winRateLo,winRateHi,previous,vsPrevious,vsPreviousLo,vsPreviousHi,bestSoFar,vsBest,vsBestLo,vsBestHi,best',
    );
    expect(csv).toHaveLength(9);

    const page = await html('/checkpoints');
    expect(page).toContain('Series sft-1 vs gpt-3.5-turbo');
    for (const [judge, best] of Object.entries(cli.best))
      expect(page).toContain(`<strong>${best}</strong> (${judge})`);
    for (const [judge, tied] of Object.entries(cli.tiedBest))
      expect(page).toContain(`none, a tie between ${tied.join(', ')} (${judge})`);
    // 6 questions: every figure alone, the reason said
    expect(page).toContain(
      'No intervals: 6 questions (fewer than 30): too few for a question-bootstrap interval.',
    );
    expect(page).toContain('src="/charts/checkpoints.svg?series=sft-1"');
    expect(page).toMatch(
      /<th scope="row" class="l">step-400<\/th><td class="l">claude-v1<\/td><td class="l">imported/,
    );
    const svg = await get('/charts/checkpoints.svg?series=sft-1');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    const body = await svg.text();
    expect(body).toMatch(/^<svg[\s\S]*<\/svg>$/);
    for (const judge of judged) expect(body).toContain(`>${judge}</text>`);
    expect((await get('/charts/checkpoints.svg?series=sft-1&size=narrow')).status).toBe(200);
    expect((await get('/charts/checkpoints.svg')).status).toBe(400);
    expect((await get('/charts/checkpoints.svg?series=nope')).status).toBe(404);
  });
});

const WORKER_ADMIN = 'ops-pages-worker-token';

/**
 * The Worker's pre-rendered pages (src/web/pages.ts) under wrangler dev: each answered from its row, byte for byte
 * (body and headers) what the Worker renders live when an unread parameter keeps it off the row; also HEAD,
 * If-None-Match and tracking parameters.
 */
async function prerenderedAsLive(url: string): Promise<void> {
  const served = async () =>
    (
      (await (
        await fetch(`${url}/api/admin/reports`, { headers: { Authorization: `Bearer ${WORKER_ADMIN}` } })
      ).json()) as { pages: number }
    ).pages;
  const headersOf = (r: Response) => {
    const h: [string, string][] = [];
    r.headers.forEach((v, k) => h.push([k, v]));
    return h.sort(([a], [b]) => (a < b ? -1 : 1));
  };
  const pages = linkedPages(await (await fetch(`${url}/`)).text());
  expect(pages).toEqual(expect.arrayContaining(['/', '/judges', '/matrix', '/checkpoints', '/refreshes']));
  for (const p of pages) {
    const before = await served();
    const pre = await fetch(url + p);
    expect(await served(), `${p} from its row`).toBe(before + 1);
    const live = await fetch(`${url}${p}${p.includes('?') ? '&' : '?'}mode=live`);
    expect(await served(), `${p} live`).toBe(before + 1);
    expect([pre.status, headersOf(pre)], p).toEqual([200, headersOf(live)]);
    expect(await pre.text(), p).toBe(await live.text());
  }
  const before = await served();
  const head = await fetch(`${url}/checkpoints`, { method: 'HEAD' });
  const headLive = await fetch(`${url}/checkpoints?mode=live`, { method: 'HEAD' });
  expect([head.status, headersOf(head), await head.text()]).toEqual([200, headersOf(headLive), '']);
  const etag = head.headers.get('etag')!;
  const same = await fetch(`${url}/checkpoints`, { headers: { 'If-None-Match': etag } });
  const sameLive = await fetch(`${url}/checkpoints?mode=live`, { headers: { 'If-None-Match': etag } });
  expect([same.status, headersOf(same)]).toEqual([304, headersOf(sameLive)]);
  const shared = await fetch(`${url}/?utm_source=x&fbclid=y`);
  expect(await shared.text()).toBe(await (await fetch(`${url}/?mode=live`)).text());
  expect(await served()).toBe(before + 3);
}
