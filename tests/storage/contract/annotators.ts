// The Store contract, annotators: invites redeemed once, revocation, the order shown kept, and an answer that
// lands as one vote of judge `annotators` however often it is posted.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/storage/store.ts';

const MATCH = { questionId: 81, turn: 1, model1: 'alpha', model2: 'beta' };

export function describeAnnotators(current: () => Store): void {
  describe('annotators', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('add refuses a taken name; an invite is redeemed once, never after revocation', async () => {
      const a = await store.annotators.add('alice', 'hash-a', 10);
      expect(a).toEqual({
        id: a.id,
        name: 'alice',
        createdAt: 10,
        usedAt: null,
        revokedAt: null,
        again: false,
      });
      await expect(store.annotators.add('alice', 'hash-x', 11)).rejects.toThrow(/"alice" exists already/);
      expect(await store.annotators.redeem('hash-b', 12)).toBeUndefined();
      expect(await store.annotators.redeem('hash-a', 12)).toMatchObject({ id: a.id, usedAt: 12 });
      expect(await store.annotators.redeem('hash-a', 13)).toBeUndefined(); // replayed
      const b = await store.annotators.add('bob', 'hash-b', 14);
      expect(await store.annotators.revoke('bob', 15)).toBe(true);
      expect(await store.annotators.revoke('bob', 16)).toBe(false);
      expect(await store.annotators.redeem('hash-b', 17)).toBeUndefined(); // revoked
      expect(await store.annotators.get(b.id)).toMatchObject({ revokedAt: 15, usedAt: null });
      expect((await store.annotators.list()).map((x) => x.name)).toEqual(['alice', 'bob']);
    });

    it('show keeps the first order; an answer is one vote, a second answer or a skip counts nothing', async () => {
      const a = await store.annotators.add('carol', 'hash-c', 1);
      const shown = await store.annotators.show(a.id, MATCH, 'BA', 2);
      expect(await store.annotators.show(a.id, MATCH, 'AB', 3)).toEqual(shown);
      expect(shown).toMatchObject({ order: 'BA', choice: null, shownAt: 2 });
      // B was model_1 (BA: model_2 shown as A)
      expect(await store.annotators.answer({ annotation: shown, choice: 'B', reason: 'r', at: 4 })).toBe(
        true,
      );
      expect(await store.annotators.answer({ annotation: shown, choice: 'B', reason: 'r', at: 5 })).toBe(
        false,
      );
      expect(await store.annotators.answer({ annotation: shown, choice: 'A', reason: null, at: 6 })).toBe(
        false,
      );
      const skipped = await store.annotators.show(a.id, { ...MATCH, turn: 2 }, 'AB', 7);
      expect(
        await store.annotators.answer({ annotation: skipped, choice: 'skip', reason: null, at: 8 }),
      ).toBe(true);
      expect(await store.annotators.answer({ annotation: skipped, choice: 'A', reason: null, at: 9 })).toBe(
        false,
      );
      expect(await store.votes.list('annotators')).toEqual([
        { judge: 'annotators', voter: `annotator_${a.id}`, ...MATCH, winner: 'model_1' },
      ]);
      expect((await store.annotators.answered()).map((n) => [n.turn, n.choice, n.reason])).toEqual([
        [1, 'B', 'r'],
      ]);
      expect((await store.annotators.shown(a.id)).map((n) => n.choice)).toEqual(['B', 'skip']);
      expect((await store.games.judges()).find((j) => j.judge === 'annotators')?.votes).toBe(1);
    });

    it("mergeSite takes in the site's redeemed invites, annotations, answers and votes once; a contradiction is refused, nothing written", async () => {
      const a = await store.annotators.add('dora', 'hash-d', 1);
      const here = await store.annotators.show(a.id, MATCH, 'AB', 2);
      const site = {
        annotators: [{ id: a.id, name: 'dora', usedAt: 3 }],
        annotations: [
          { ...here, choice: 'A' as const, reason: 'site', answeredAt: 4 },
          {
            ...here,
            id: here.id + 10,
            turn: 2,
            order: 'BA' as const,
            choice: null,
            reason: null,
            answeredAt: null,
          },
        ],
        votes: [
          {
            voter: `annotator_${a.id}`,
            ...MATCH,
            modelA: 'alpha',
            modelB: 'beta',
            winner: 'model_a' as const,
            line: 7,
          },
        ],
      };
      expect(await store.annotators.mergeSite(site)).toEqual({
        redeemed: 1,
        annotations: 1,
        answers: 1,
        votes: 1,
      });
      expect(await store.annotators.mergeSite(site)).toEqual({
        redeemed: 0,
        annotations: 0,
        answers: 0,
        votes: 0,
      });
      expect(await store.annotators.get(a.id)).toMatchObject({ usedAt: 3 });
      expect((await store.annotators.shown(a.id)).map((n) => [n.id, n.turn, n.order, n.choice])).toEqual([
        [here.id, 1, 'AB', 'A'],
        [here.id + 10, 2, 'BA', null],
      ]);
      expect(await store.votes.list('annotators')).toEqual([
        { judge: 'annotators', voter: `annotator_${a.id}`, ...MATCH, winner: 'model_1' },
      ]);
      const before = JSON.stringify([await store.annotators.shown(a.id), await store.votes.list()]);
      for (const bad of [
        { ...site, annotators: [{ id: a.id, name: 'eve', usedAt: null }] },
        { ...site, annotations: [{ ...site.annotations[0]!, choice: 'B' as const }] },
        { ...site, annotations: [{ ...site.annotations[1]!, id: here.id + 20 }] },
        { ...site, votes: [{ ...site.votes[0]!, winner: 'tie' as const }] },
      ])
        await expect(store.annotators.mergeSite(bad)).rejects.toThrow(/nothing was taken in/);
      expect(JSON.stringify([await store.annotators.shown(a.id), await store.votes.list()])).toBe(before);
    });

    it('a session lives on the server: logout and revocation end it; a used or revoked invite is issued again to the same voter', async () => {
      const a = await store.annotators.add('erin', 'hash-e', 1);
      expect(await store.annotators.redeem('hash-e', 2, 'sess-1')).toMatchObject({ id: a.id });
      expect(await store.annotators.session(a.id, 'sess-1')).toMatchObject({ id: a.id, name: 'erin' });
      expect(await store.annotators.session(a.id, 'sess-2')).toBeUndefined();
      await store.annotators.endSession(a.id, 'sess-1');
      expect(await store.annotators.session(a.id, 'sess-1')).toBeUndefined(); // logged out
      // the invite was used: invited again, the same id (one voter), the old token dead, the new one good once
      const again = await store.annotators.add('erin', 'hash-e2', 3);
      expect(again).toMatchObject({ id: a.id, createdAt: 3, usedAt: null, revokedAt: null, again: true });
      expect(await store.annotators.redeem('hash-e', 4, 'x')).toBeUndefined();
      expect(await store.annotators.redeem('hash-e2', 4, 'sess-3')).toMatchObject({ id: a.id });
      await expect(store.annotators.add('erin', 'hash-e3', 5)).resolves.toMatchObject({ id: a.id });
      expect(await store.annotators.session(a.id, 'sess-3')).toBeUndefined(); // a new invite ends the session
      expect(await store.annotators.redeem('hash-e3', 6, 'sess-4')).toMatchObject({ id: a.id });
      expect(await store.annotators.revoke('erin', 7)).toBe(true);
      expect(await store.annotators.session(a.id, 'sess-4')).toBeUndefined(); // revoked
      expect(await store.annotators.add('erin', 'hash-e4', 8)).toMatchObject({ id: a.id, revokedAt: null });
      expect((await store.annotators.list()).filter((x) => x.name === 'erin')).toHaveLength(1);
    });

    it('a new annotator never takes the number of an imported voter; an imported vote on a match makes its answer count nothing', async () => {
      const top = Math.max(0, ...(await store.annotators.list()).map((x) => x.id)) + 40;
      await store.importBundle({
        votes: [
          {
            source: 'annotators.jsonl',
            items: [
              {
                judge: 'annotators',
                voter: `annotator_${top}`,
                ...MATCH,
                turn: 2,
                winner: 'model_2',
                line: 1,
              },
            ],
          },
        ],
      });
      const a = await store.annotators.add('fay', 'hash-f', 1);
      expect(a.id).toBe(top + 1);
      // the imported voter invited under its number, shown the match it has a vote on
      const n = await store.annotators.show(top, { ...MATCH, turn: 2 }, 'AB', 2);
      expect(await store.annotators.answer({ annotation: n, choice: 'A', reason: null, at: 3 })).toBe(false);
      expect((await store.annotators.annotation(n.id))?.choice).toBeNull();
      expect((await store.votes.list('annotators')).filter((v) => v.voter === `annotator_${top}`)).toEqual([
        { judge: 'annotators', voter: `annotator_${top}`, ...MATCH, turn: 2, winner: 'model_2' },
      ]);
    });

    it('rate limits: one fixed window per key, counted in the database; ended windows are forgotten', async () => {
      expect(await store.limits.hit('votes:1', 60_000, 1000)).toEqual({ count: 1, resetAt: 61_000 });
      expect(await store.limits.hit('votes:1', 60_000, 2000)).toEqual({ count: 2, resetAt: 61_000 });
      expect(await store.limits.hit('votes:2', 60_000, 3000)).toEqual({ count: 1, resetAt: 63_000 });
      expect(await store.limits.hit('votes:1', 60_000, 60_999)).toEqual({ count: 3, resetAt: 61_000 });
      // the window ended: a new one starts with this request, and votes:2's (ended at 63 s) is deleted by the next
      expect(await store.limits.hit('votes:1', 60_000, 61_000)).toEqual({ count: 1, resetAt: 121_000 });
      expect(await store.limits.hit('address:x', 1000, 63_000)).toEqual({ count: 1, resetAt: 64_000 });
      expect(await store.limits.hit('votes:2', 60_000, 63_500)).toEqual({ count: 1, resetAt: 123_500 });
    });
  });
}
