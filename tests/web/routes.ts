// The site's route tests, run against any way of serving the app: in-process (`app.request`) over the
// SQLite store, and the Worker under `wrangler dev` over a local D1 (tests/web/worker.test.ts).
import { readFileSync } from 'node:fs';
import * as figures from '../../src/core/format.ts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countFromCsv, EVIL_MODEL, LLMBAR_DIR, MTBENCH_DIR, XSS_JUDGE } from './fixture.ts';
import { MTBENCH_GPT4_ORDER } from '../support/materials.ts';

export interface Target {
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

const CSV = () => readFileSync(join(MTBENCH_DIR, 'human_judgments', 'mt_bench_gpt4_pair.csv'), 'utf8');

/** What a page must never contain once untrusted text is in it: live script, handlers, javascript: URLs. */
export function expectInert(html: string): void {
  expect(html).not.toMatch(/<script(?![^>]*\ssrc="\/static\/)/i); // only the app's own script tag
  expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=/i); // no event-handler attribute in any tag
  expect(html).not.toMatch(/(href|src|action)\s*=\s*["']?\s*javascript:/i);
  expect(html).not.toMatch(/<img[^>]*src="?https?:/i);
}

/** `more` adds tests of its own that run against the same target, before it is closed. */
export function describeRoutes<T extends Target>(
  name: string,
  setup: () => Promise<T>,
  more?: (target: () => T) => void,
): void {
  describe(`site routes: ${name}`, () => {
    let t: T;
    beforeAll(async () => {
      t = await setup();
    }, 420_000); // publishing to a local D1 alone took 140 s on the shared 2-core machine (load average 15-20)
    afterAll(async () => {
      await t?.close();
    });
    const get = async (path: string, init?: RequestInit) => {
      const r = await t.request(path, init);
      return { r, body: await r.text() };
    };

    it('GET /leaderboard shows one table per judge with the release numbers (gpt-4 counted from the CSV)', async () => {
      const { r, body } = await get('/leaderboard');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      const exp = countFromCsv(CSV(), 'gpt4_pair', 'gpt-4');
      expect(exp).toEqual({ win: 617, loss: 45, tie: 138 }); // the numbers of the paper's release
      const section = body.slice(body.indexOf('Judge: gpt-4'));
      expect(section).toMatch(
        new RegExp(
          `>gpt-4</a></th><td[^>]*>${exp.win}</td><td[^>]*>${exp.loss}</td><td[^>]*>${exp.tie}</td>`,
        ),
      );
      expect(body).toContain('Judge: human');
      expect(body).toContain('Judge: mock/longer');
      // errors and inconsistent counts are shown, not hidden
      expect(body).toContain('of which inconsistent');
      expect(body).toMatch(/<th scope="col"[^>]*>error<\/th>/);
    });

    it('GET /api/standings?judge=gpt-4 is the standings array (the shape `arena standings --json` prints)', async () => {
      const { r, body } = await get('/api/standings?judge=gpt-4');
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const rows = JSON.parse(body) as { model: string; win: number; loss: number; tie: number }[];
      expect(rows[0]).toMatchObject({ model: 'gpt-4', win: 617, loss: 45, tie: 138 });
      expect(rows.map((x) => x.model)).toEqual(MTBENCH_GPT4_ORDER);
    });

    it('every table is JSON and CSV with the same columns, and turn/category filters change the numbers', async () => {
      const idx = JSON.parse((await get('/api')).body) as { tables: Record<string, { columns: string[] }> };
      const lb = await get('/api/leaderboard?judge=gpt-4');
      const rows = JSON.parse(lb.body) as Record<string, unknown>[];
      expect(Object.keys(rows[0]!)).toEqual(idx.tables.leaderboard!.columns);
      const csv = await get('/api/leaderboard.csv?judge=gpt-4');
      expect(csv.r.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = csv.body.trim().split('\r\n');
      expect(lines[0]).toBe(idx.tables.leaderboard!.columns.join(','));
      expect(lines).toHaveLength(rows.length + 1);
      expect(lines[1]!.startsWith('1,gpt-4,617,45,138,')).toBe(true);
      const gpt4 = rows[0]!;
      expect(gpt4.ratingLo as number).toBeLessThan(gpt4.rating as number);
      expect(gpt4.ratingHi as number).toBeGreaterThan(gpt4.rating as number);
      // turn 1 and turn 2 add up to the pooled counts
      const t1 = JSON.parse((await get('/api/leaderboard?judge=gpt-4&turn=1')).body)[0];
      const t2 = JSON.parse((await get('/api/leaderboard?judge=gpt-4&turn=2')).body)[0];
      expect(t1.win + t2.win).toBe(617);
      const writing = JSON.parse((await get('/api/leaderboard?judge=human&category=writing')).body) as {
        win: number;
      }[];
      const all = JSON.parse((await get('/api/leaderboard?judge=human')).body) as { win: number }[];
      expect(writing.reduce((s, x) => s + x.win, 0)).toBeLessThan(all.reduce((s, x) => s + x.win, 0));
      for (const name of Object.keys(idx.tables)) {
        const q = name.startsWith('model-')
          ? '?model=gpt-4&judge=gpt-4'
          : name === 'games'
            ? '?question=81&a=gpt-4&b=claude-v1'
            : '';
        const j = await get(`/api/${name}${q}`);
        expect(j.r.status, name).toBe(200);
        const c = await get(`/api/${name}.csv${q}`);
        expect(c.r.status, name).toBe(200);
        expect(c.body.split('\r\n')[0], name).toBe(idx.tables[name]!.columns.join(','));
      }
    });

    it('agreement and consistency come from the release: gpt-4 vs human on turn 1 is 66% (S1) and 85% (S2), as in the paper', async () => {
      const ag = JSON.parse((await get('/api/agreement')).body) as {
        judge1: string;
        judge2: string;
        turn: number;
        setup: string;
        ratio: number;
        kappa: number;
        kappaLo: number;
      }[];
      const pick = (setup: string) =>
        ag.find(
          (a) => [a.judge1, a.judge2].sort().join() === 'gpt-4,human' && a.turn === 1 && a.setup === setup,
        )!;
      // Zheng et al. 2023, Table 2 (first turn): GPT-4 vs human, S1 (with tie) 66%, S2 (without tie) 85%
      expect(Math.round(pick('with-tie').ratio * 100)).toBe(66);
      expect(Math.round(pick('without-tie').ratio * 100)).toBe(85);
      const cons = JSON.parse((await get('/api/consistency')).body) as {
        judge: string;
        matches: number;
        inconsistent: number;
      }[];
      expect(cons.find((c) => c.judge === 'gpt-4')).toMatchObject({ matches: 2400 });
      expect(pick('without-tie').kappa).toBeGreaterThan(0);
      expect(pick('without-tie').kappaLo).toBeLessThan(pick('without-tie').kappa);
      const { body } = await get('/judges');
      expect(body).toContain('S2 (without tie)');
      expect(body).toContain('Position bias');
    });

    it('GET /judges opens with the judge leaderboard; /api/judge-board and /api/accuracy carry its numbers', async () => {
      type Rate = number | null;
      const board = JSON.parse((await get('/api/judge-board')).body) as Record<
        string,
        Rate | string | unknown[]
      >[];
      const row = (j: string) => board.find((b) => b.judge === j)!;
      // gpt-4 is known by its recorded outcomes: consistency is 1 - the CSV's inconsistent share; experts S1 pooled over both turns
      const csv = CSV().split('\n');
      const inconsistent = csv.filter((l) => l.includes(',tie (inconsistent),gpt4_pair,')).length;
      expect(row('gpt-4')).toMatchObject({ source: 'recorded', games: 0 });
      expect(row('gpt-4').consistency as number).toBeCloseTo(1 - inconsistent / 2400, 12);
      // the paper's agreement counts (FastChat's compute_agreement): 886/1343 and 871/1325 with ties
      const s1 = (
        row('gpt-4').experts as { turn: number; setup: string; agree: number; total: number; kappa: number }[]
      ).filter((e) => e.setup === 'with-tie');
      expect(s1.map((e) => [e.turn, e.agree, e.total])).toEqual([
        [1, 886, 1343],
        [2, 871, 1325],
        [0, 886 + 871, 1343 + 1325],
      ]);
      expect(row('gpt-4').expertsS1Kappa).toBe(s1[2]!.kappa);
      expect(row('gpt-4').expertsS1KappaLo as number).toBeLessThan(s1[2]!.kappa);
      // mock/longer always picks the longer answer; mock/xss always says [[A]]
      expect(row('mock/longer')).toMatchObject({
        source: 'games',
        games: 8,
        errorRate: 0,
        consistency: 1,
        firstPosition: 0.5,
      });
      // its 8 games (questions 81, 82; both turns and orders) all went to gpt-4 (model 1): the longer-answer share
      // is the share of those games whose turn's gpt-4 answer is longer than claude-v1's, from the release's files
      const turns = (m: string) =>
        new Map(
          readFileSync(join(MTBENCH_DIR, 'model_answer', `${m}.jsonl`), 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { question_id: number; choices: { turns: string[] }[] })
            .map((a) => [a.question_id, a.choices[0]!.turns]),
        );
      const [g4, cl] = [turns('gpt-4'), turns('claude-v1')];
      const longer = [81, 82]
        .flatMap((q) => [0, 1].map((t) => Number(g4.get(q)![t]!.length > cl.get(q)![t]!.length)))
        .reduce((a, b) => a + b, 0);
      expect(row('mock/longer').longerShare).toBe(longer / 4);
      expect(row(XSS_JUDGE)).toMatchObject({ firstPosition: 1, consistency: 0 });
      expect(board.map((b) => b.judge)).not.toContain('human');
      expect(board.map((b) => b.judge)).not.toContain('gold');
      const { body } = await get('/judges');
      expect(body).toContain('<h2 id="board-title">Judge leaderboard</h2>');
      // one ranking: a row per judge, MT-Bench's and LLMBar's alike, n/a where a judge was not run on a set
      const table = (cls: string) => body.slice(body.indexOf(`<table class="${cls}">`)).split('</table>')[0]!;
      const rowOf = (html: string, judge: string) =>
        [
          ...(html.split(`<th scope="row">${judge}`)[1] ?? '')
            .split('</tr>')[0]!
            .matchAll(/<td[^>]*>(.*?)<\/td>/g),
        ].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
      const ranking = table('judge-board');
      expect(rowOf(ranking, 'gpt-4')[0]).toContain(`${figures.kappa(s1[2]!.kappa)} (`);
      expect(rowOf(ranking, 'mock/longer').length).toBe(rowOf(ranking, 'gpt-4').length);
      // gpt-4 is known by recorded verdicts only: its games are n/a, never "0" beside its rates
      const behaviour = body.slice(body.indexOf("Behaviour, from each judge's games")).split('</table>')[0]!;
      expect(behaviour).toMatch(
        /gpt-4 <span class="muted">\(recorded\)<\/span><\/th><td class="na">n\/a<\/td>/,
      );
      expect(body.indexOf('Judge leaderboard')).toBeLessThan(body.indexOf('Position bias'));
      // the pooled row reads "both" in the turn column, and the caption says so (it said "0: both turns")
      expect(body).toContain('Agreement with the experts per turn (both: the two turns pooled)');
      expect(body).toMatch(/<td>1<\/td><td>both<\/td>/);
      if (!LLMBAR_DIR) return;
      // LLMBar's judges: accuracy over every labelled item, counted here straight from the result files
      const sets = [
        'Natural',
        'Adversarial/Neighbor',
        'Adversarial/GPTInst',
        'Adversarial/GPTOut',
        'Adversarial/Manual',
      ];
      let correct = 0;
      let items = 0;
      for (const set of sets) {
        const res = JSON.parse(
          readFileSync(join(LLMBAR_DIR, set, 'evaluators', 'GPT-4', 'Vanilla', 'result.json'), 'utf8'),
        ) as { label: number | string; results: Record<string, { winner: string | null }>[] }[];
        for (const it of res) {
          const last = it.results.at(-1)!;
          correct +=
            Number(last['swap = False']!.winner === String(it.label)) +
            Number(last['swap = True']!.winner === String(it.label));
          items++;
        }
      }
      expect(items).toBe(419);
      expect(row('GPT-4/Vanilla').accuracy as number).toBeCloseTo(correct / 2 / items, 12);
      expect(row('GPT-4/Vanilla').rank).toBe(1);
      expect((row('LLaMA2/Vanilla').accuracyHi as number) < (row('GPT-4/Vanilla').accuracyLo as number)).toBe(
        true,
      );
      expect(row('LLaMA2/Vanilla').rank).toBe(3);
      const acc = JSON.parse((await get('/api/accuracy')).body) as {
        set: string;
        judge: string;
        total: number;
        correctAB: number;
      }[];
      expect(acc).toHaveLength(20);
      expect(acc.find((a) => a.set === 'Natural' && a.judge === 'GPT-4/Vanilla')).toMatchObject({
        total: 100,
        correctAB: 95,
      });
      expect(body).toContain('<th scope="row">GPT-4/Vanilla</th>');
      const vanilla = rowOf(ranking, 'GPT-4/Vanilla');
      expect(vanilla.slice(0, 2)).toEqual(['n/a', 'n/a']); // not judged against the MT-Bench experts
      expect(vanilla[2]).toContain(`${figures.pct(row('GPT-4/Vanilla').accuracy as number)} (`);
      expect(rowOf(ranking, 'gpt-4').slice(2)).toEqual(Array(vanilla.length - 2).fill('n/a'));
      expect(body).toContain('<th scope="col">Adversarial/<wbr>Neighbor</th>'); // a line may break after the slash
      // the labelled set is not a tournament: no leaderboard of output_1 against output_2
      expect((await get('/')).body).not.toContain('output_1');
    });

    it('position bias: a judge that always says [[A]] picks the first answer every time; recorded conflicts match the CSV', async () => {
      const bias = JSON.parse((await get('/api/position-bias')).body) as Record<string, unknown>[];
      // the fixture's mock/xss judge answers [[A]] in both orders of evil-model vs gpt-4 (question 81, 2 turns)
      expect(bias.find((b) => b.judge === XSS_JUDGE && b.source === 'games')).toMatchObject({
        games: 4,
        errors: 0,
        positionA: 1,
        matches: 2,
        conflicts: 2,
        conflict: 1,
        favoursFirst: 2,
        favoursSecond: 0,
        withTie: 0,
      });
      // mock/longer prefers the longer answer whatever its position: its orders never conflict
      expect(bias.find((b) => b.judge === 'mock/longer' && b.source === 'games')).toMatchObject({
        games: 8,
        matches: 4,
        conflicts: 0,
      });
      const inconsistent = CSV()
        .split('\n')
        .filter((l) => l.includes(',tie (inconsistent),gpt4_pair,')).length;
      expect(bias.find((b) => b.judge === 'gpt-4' && b.source === 'recorded')).toMatchObject({
        matches: 2400,
        conflicts: inconsistent,
      });
    });

    it('single-answer grading has its own table: every model graded on 2 questions x 2 turns', async () => {
      const rows = JSON.parse((await get('/api/single')).body) as {
        judge: string;
        model: string;
        turn1: number;
        turn2: number;
        score: number;
        n: number;
        error: number;
      }[];
      const mine = rows.filter((r) => r.judge === 'mock/longer');
      expect(mine.map((r) => r.model).sort()).toEqual(['claude-v1', 'gpt-4']);
      for (const r of mine) {
        expect(r).toMatchObject({ n: 4, error: 0 });
        expect(r.score).toBeCloseTo((r.turn1 + r.turn2) / 2, 12);
      }
      const { body } = await get('/leaderboard');
      expect(body).toContain('Single-answer grading: mock/longer');
    });

    it('ETag: a repeated request revalidates to 304; the body is stable', async () => {
      const a = await get('/api/leaderboard?judge=human');
      const etag = a.r.headers.get('etag');
      expect(etag).toMatch(/^"[0-9a-f]{16}-[0-9a-z]+"$/);
      const b = await t.request('/api/leaderboard?judge=human', { headers: { 'If-None-Match': etag! } });
      expect(b.status).toBe(304);
      expect(await b.text()).toBe('');
      const c = await get('/api/leaderboard?judge=human');
      expect(c.body).toBe(a.body);
      expect(c.r.headers.get('cache-control')).toContain('must-revalidate');
    });

    it('security headers: a strict CSP without inline script or style, no framing, no sniffing', async () => {
      const { r } = await get('/');
      const csp = r.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    });

    it('HEAD is its GET without the body: same status, security headers, the GET body length (200, 404, 403)', async () => {
      for (const [path, status] of [
        ['/', 200],
        ['/api/leaderboard?judge=human', 200],
        ['/no-such-page', 404],
        ['/api/no-such-endpoint', 404],
        // refused: 403 where no admin token is set, 401 where one is (the Worker under test has one)
        ['/api/admin/purge', [401, 403]],
      ] as const) {
        const plain = { headers: { 'Accept-Encoding': 'identity' } };
        const { r: full, body } = await get(path, plain);
        const head = await t.request(path, { method: 'HEAD', ...plain });
        expect(head.status, path).toBe(full.status);
        expect(([] as number[]).concat(status), path).toContain(full.status);
        for (const h of [
          'content-security-policy',
          'x-frame-options',
          'x-content-type-options',
          'content-type',
        ])
          expect(head.headers.get(h), `HEAD ${path} ${h}`).toBe(full.headers.get(h));
        expect(head.headers.get('x-content-type-options'), path).toBe('nosniff');
        expect(head.headers.get('content-length'), path).toBe(String(new TextEncoder().encode(body).length));
        expect(await head.text(), path).toBe('');
      }
    });

    it('the page loads nothing from elsewhere: its stylesheet and script are served by the app', async () => {
      const { body } = await get('/');
      const refs = [...body.matchAll(/<(?:link|script|img)[^>]*(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
      expect(refs.length).toBeGreaterThan(2);
      for (const u of refs) expect(u.startsWith('/'), u).toBe(true);
      const css = refs.find((u) => u.startsWith('/static/site.css'))!;
      const r = await t.request(css);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/css/);
      expect(r.headers.get('cache-control')).toContain('immutable');
    });

    it('the match browser shows the question, both answers, the reference and both games with their texts', async () => {
      const { r, body } = await get('/matches?question=81&a=gpt-4&b=claude-v1');
      expect(r.status).toBe(200);
      const q = JSON.parse((await get('/api/match?question=81&a=gpt-4&b=claude-v1')).body);
      expect(
        q.games.filter(
          (g: { judge: string; match: { turn: number } }) => g.judge === 'mock/longer' && g.match.turn === 1,
        ),
      ).toHaveLength(2);
      expect(body).toContain('order AB');
      expect(body).toContain('order BA');
      expect(body.match(/Mock evaluation \(longer\)/g)!.length).toBe(4); // 2 turns x 2 orders
      expect(body).toContain('Compose an engaging travel blog post'); // question 81
      // recorded verdicts of the release for this item (gpt-4's and the experts')
      expect(body).toContain('Recorded verdicts');
      // a math question carries its reference answer
      const math = await get('/matches?question=111&a=gpt-4&b=claude-v1');
      expect(math.body).toContain('Reference answer (gpt-4)');
    });

    it('untrusted answers and judge texts render inert: escaped, no handlers, no javascript: links', async () => {
      const { r, body } = await get(`/matches?question=81&a=${EVIL_MODEL}&b=gpt-4`);
      expect(r.status).toBe(200);
      expect(body).toContain(XSS_JUDGE);
      expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;');
      expectInert(body);
      const api = await get(`/api/match?question=81&a=${EVIL_MODEL}&b=gpt-4`);
      expect(api.r.headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('model pages, win matrix, runs and charts', async () => {
      const m = await get('/models/gpt-4?judge=gpt-4');
      expect(m.r.status).toBe(200);
      expect(m.body).toContain('does best against');
      const mx = await get('/matrix?judge=human&turn=2');
      expect(mx.r.status).toBe(200);
      expect(mx.body).toContain('Battle counts');
      const runs = await get('/runs');
      expect(runs.body).toContain('mock/longer');
      for (const c of [
        '/charts/winrate.svg?judge=gpt-4',
        '/charts/matrix.svg?judge=gpt-4',
        '/charts/judges.svg',
        '/charts/model.svg?judge=gpt-4&model=gpt-4',
      ]) {
        const s = await get(c);
        expect(s.r.status, c).toBe(200);
        expect(s.r.headers.get('content-type')).toBe('image/svg+xml');
        expect(s.body.startsWith('<svg'), c).toBe(true);
        expect(s.body).toContain(c.includes('model.svg') ? 'writing' : 'gpt-4');
      }
    });

    it('bad parameters are clear 400/404 errors; unknown pages are 404', async () => {
      const a = await get('/api/leaderboard?judge=nobody');
      expect(a.r.status).toBe(404);
      expect(JSON.parse(a.body).error).toContain('no judge named "nobody"');
      const b = await get('/api/leaderboard?judge=gpt-4&turn=3');
      expect(b.r.status).toBe(400);
      expect(JSON.parse(b.body).error).toContain('"turn"');
      expect((await get('/matches?question=abc&a=gpt-4&b=claude-v1')).r.status).toBe(400);
      expect((await get('/models/no-such-model')).r.status).toBe(404);
      expect((await get('/no/such/page')).r.status).toBe(404);
      expect((await get('/api/nope')).r.status).toBe(404);
    });

    it('read-only: writes are refused; the purge endpoint needs the admin token', async () => {
      const p = await t.request('/', { method: 'POST', body: 'x' });
      expect(p.status).toBe(405);
      expect(p.headers.get('allow')).toBe('GET, HEAD');
      expect((await t.request('/api/leaderboard', { method: 'DELETE' })).status).toBe(405);
      const noToken = await t.request('/api/admin/purge', { method: 'POST' });
      expect([401, 403]).toContain(noToken.status);
      const wrong = await t.request('/api/admin/purge', {
        method: 'POST',
        headers: { Authorization: 'Bearer wrong' },
      });
      expect([401, 403]).toContain(wrong.status);
      const head = await t.request('/', { method: 'HEAD' });
      expect(head.status).toBe(200);
    });
    more?.(() => t);
  });
}
