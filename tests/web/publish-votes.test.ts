// `arena publish` never erases what the site recorded on D1 (/annotate votes, matches shown, invites redeemed):
// it reads them back into the SQLite file first, then writes the file's rows around them. Real wrangler, local D1.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inviteHash } from '../../src/core/annotate.ts';
import { openD1Store } from '../../src/storage/d1.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import type { Store } from '../../src/storage/store.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { ANSWERS, QUESTIONS } from '../storage/contract.ts';
import { openLocalD1 } from './local-d1.ts';
import { localD1, WRANGLER_ENV } from './support.ts';

Object.assign(process.env, WRANGLER_ENV);

const MATCH = { questionId: 81, model1: 'alpha', model2: 'beta' };
const HUMAN = { judge: 'human', voter: 'e1', ...MATCH, winner: 'tie' as const };

/** `fn` over the Store on the local D1 in `persist` (the Worker's own Store code, in workerd). */
async function onSite<T>(persist: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const site = await openLocalD1(persist);
  try {
    return await fn(openD1Store(site.db));
  } finally {
    await site.dispose();
  }
}

describe('arena publish over a site that collects votes', () => {
  it('keeps the votes, annotations and redeemed invites of D1, takes them into the file, and adds the rest', async () => {
    const dir = tmpDir('arena-publish-votes-');
    const file = join(dir, 'arena.db');
    const local = openSqliteStore(file);
    await local.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
      votes: [{ source: 'h.csv', items: [{ ...HUMAN, turn: 1, line: 1 }] }],
    });
    const alice = await local.annotators.add('alice', inviteHash('alice-token'), 1);
    await local.annotators.add('bob', inviteHash('bob-token'), 1);
    await local.close();
    const persist = await localD1(dir);
    const publish = async (...to: string[]) => {
      const args = ['publish', '--db', file, ...(to.length ? to : ['--persist-to', persist])];
      const r = await runArena(args, { timeoutMs: 180_000 });
      expect(r.code, (r.stderr + r.stdout).slice(-3000)).toBe(0);
      return { out: r.stdout, built: /^reports: (\d+) recomputed, (\d+) current/m.exec(r.stderr)!.slice(1) };
    };
    /** every stored report of the file, without its body, and the stored pages */
    const fileIndex = async () => {
      const s = openSqliteStore(file, { readonly: true });
      try {
        return { reports: await s.reports.index(), pages: await s.pages.list() };
      } finally {
        await s.close();
      }
    };
    /** the stored reports of the file (reportMap) */
    const reportsOfFile = async () => reportMap((await fileIndex()).reports);
    // the first publish builds every report (the file never held any); one right after computes none
    const first = await publish();
    const builtFirst = await reportsOfFile();
    expect(first.built).toEqual([String(builtFirst.size), '0']);
    expect((await publish('--out', join(dir, 'again.sql'))).built).toEqual(['0', String(builtFirst.size)]);
    expect(await reportsOfFile()).toEqual(builtFirst);

    // on the site: alice redeems her invite, answers turn 1 and leaves turn 2 open in her browser
    const pending = await onSite(persist, async (s) => {
      expect(await s.annotators.redeem(inviteHash('alice-token'), 5)).toMatchObject({ id: alice.id });
      const t1 = await s.annotators.show(alice.id, { ...MATCH, turn: 1 }, 'BA', 6);
      expect(await s.annotators.answer({ annotation: t1, choice: 'A', reason: 'r', at: 7 })).toBe(true);
      return s.annotators.show(alice.id, { ...MATCH, turn: 2 }, 'AB', 8);
    });
    // here: bob is revoked, carol invited, another human vote imported
    const here = openSqliteStore(file);
    await here.annotators.revoke('bob', 9);
    await here.annotators.add('carol', inviteHash('carol-token'), 9);
    await here.importBundle({ votes: [{ source: 'h2.csv', items: [{ ...HUMAN, turn: 2, line: 1 }] }] });
    await here.close();

    const second = await publish();
    expect(second.out).toContain('from D1 mt-arena: 1 new votes');
    // it recomputed exactly the reports whose data changed, each of them (here every one: they all read the human
    // votes or every judge's, and the annotators are a new judge; tests/reports/stored.test.ts has reports kept)
    const builtSecond = await reportsOfFile();
    const pagesSecond = pageMap((await fileIndex()).pages);
    expect(pagesSecond.size).toBeGreaterThan(0);
    const changed = [...builtSecond].filter(([k, [digest]]) => builtFirst.get(k)?.[0] !== digest);
    const rebuilt = [...builtSecond].filter(([k, [, at]]) => builtFirst.get(k)?.[1] !== at);
    expect(changed.length).toBeGreaterThan(0);
    expect(rebuilt.map(([k]) => k)).toEqual(changed.map(([k]) => k));
    expect(second.built).toEqual([String(changed.length), String(builtSecond.size - changed.length)]);
    const aliceVote = {
      judge: 'annotators',
      voter: `annotator_${alice.id}`,
      ...MATCH,
      turn: 1,
      winner: 'model_2',
    };
    // the file took in alice's vote, the match she answered and the one still open, and her login
    const back = openSqliteStore(file, { readonly: true });
    const mine = {
      votes: await back.votes.list(),
      shown: (await back.annotators.shown(alice.id)).map((n) => [n.id, n.turn, n.order, n.choice]),
      annotators: (await back.annotators.list()).map((a) => [
        a.name,
        a.usedAt !== null,
        a.revokedAt !== null,
      ]),
    };
    await back.close();
    expect(mine.votes.filter((v) => v.judge === 'annotators')).toEqual([aliceVote]);
    expect(mine.shown).toEqual([
      [pending.id - 1, 1, 'BA', 'A'],
      [pending.id, 2, 'AB', null],
    ]);
    expect(mine.annotators).toEqual([
      ['alice', true, false],
      ['bob', false, true],
      ['carol', false, false],
    ]);

    const site = await onSite(persist, async (s) => {
      const votes = await s.votes.list();
      // D1 holds the reports as this publish left them in the file: every one current
      const onD1 = reportMap(await s.reports.index());
      expect(onD1).toEqual(builtSecond);
      // and the pages this publish rendered for the Worker, none left from the first publish
      expect(pageMap(await s.pages.list())).toEqual(pagesSecond);
      // the Worker's site over D1 reads the reports this publish built after taking the vote in
      const judgesPage = async () => {
        const r = await createApp({ store: s, reports: 'read' }).request('/judges');
        expect(r.status).toBe(200);
        return /<p id="annotators-counted">(.*?)<\/p>/.exec(await r.text())?.[1] ?? '';
      };
      expect(await judgesPage()).toMatch(/^Agreement figures computed .+ UTC from 1 annotator votes\.$/);
      // alice goes on in the page she had open: the pending match's id still names it
      const still = await s.annotators.annotation(pending.id);
      expect(still).toEqual(pending);
      expect(await s.annotators.answer({ annotation: still!, choice: 'tie', reason: null, at: 10 })).toBe(
        true,
      );
      // a vote cast since is counted on the page, and said to wait for the next publish in the figures
      expect(await judgesPage()).toContain('from 1 annotator votes; <strong>1 votes cast since</strong>');
      return {
        votes,
        replay: await s.annotators.redeem(inviteHash('alice-token'), 11),
        bob: await s.annotators.redeem(inviteHash('bob-token'), 11),
        carol: await s.annotators.redeem(inviteHash('carol-token'), 11),
      };
    });
    // D1 kept alice's vote (once) and has the file's new human vote; a redeemed invite stays used, a revocation
    // arrives, a new invite works
    expect([...site.votes].sort(byJson)).toEqual(
      [aliceVote, { ...HUMAN, turn: 1 }, { ...HUMAN, turn: 2 }].sort(byJson),
    );
    expect([...site.votes].sort(byJson)).toEqual([...mine.votes].sort(byJson));
    expect(site.replay).toBeUndefined();
    expect(site.bob).toBeUndefined();
    expect(site.carol).toMatchObject({ name: 'carol' });

    // alice (her invite used on the site) and bob (revoked) invited again here: the same voters, whose new invites
    // work on the site after the next publish, however the site recorded the old ones
    const again = openSqliteStore(file);
    expect(await again.annotators.add('alice', inviteHash('alice-token-2'), 12)).toMatchObject({
      id: alice.id,
    });
    const bob = await again.annotators.add('bob', inviteHash('bob-token-2'), 12);
    await again.close();
    await publish();
    const back2 = await onSite(persist, async (s) => ({
      alice: await s.annotators.redeem(inviteHash('alice-token-2'), 13, 'sess'),
      bob: await s.annotators.redeem(inviteHash('bob-token-2'), 13),
      old: await s.annotators.redeem(inviteHash('alice-token'), 13),
    }));
    expect(back2.alice).toMatchObject({ id: alice.id, name: 'alice' });
    expect(back2.bob).toMatchObject({ id: bob.id, name: 'bob', revokedAt: null });
    expect(back2.old).toBeUndefined();
  }, 900_000);
});

/** stored reports by key (view and params): digest and when built; the build's own `_state` row left out */
const reportMap = (rows: { view: string; params: string; digest: string; builtAt: number }[]) =>
  new Map(
    rows.filter((r) => r.view !== '_state').map((r) => [`${r.view} ${r.params}`, [r.digest, r.builtAt]]),
  );
/** the stored pages (src/web/pages.ts): key, the `_state` they belong to, when rendered */
const pageMap = (rows: { key: string; state: string; builtAt: number }[]) =>
  new Map(rows.map((r) => [r.key, [r.state, r.builtAt]]));

const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);
