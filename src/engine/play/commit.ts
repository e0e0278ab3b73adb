// Storing finished games, and failures as attempts. Group commit: the games that finish in the same turn of the
// event loop are stored in one transaction (one per game was a large share of a tournament's CPU). Only a game
// this run stored counts as played; one another run stored meanwhile counts as elsewhere.
import type { Game } from '../../core/types.ts';
import type { LiveRun } from './live-run.ts';

/** Count a failed game, put it on record as an attempt and give back its lease, so that another run may take it. */
export async function failGame(
  live: LiveRun,
  id: string,
  e: unknown,
  billed?: Parameters<LiveRun['attempt']>[2],
): Promise<void> {
  const msg = (e as Error)?.message ?? String(e);
  live.countFailed(msg);
  live.progress({ error: msg });
  try {
    await live.attempt(id, msg, billed);
    await live.leases.release([id]);
  } catch (w) {
    live.storageFailed(w);
  }
}

/** How long a refused write waits before its one retry. */
const RETRY_WRITE_MS = 250;

export class GroupCommit {
  private unwritten: { game: Game; cost: number | null; done(): void }[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(private readonly live: LiveRun) {}

  /** Store `game` with the others that finish in this turn of the event loop; resolves once it is stored (or failed). */
  commit(game: Game, cost: number | null): Promise<void> {
    return new Promise<void>((done) => {
      this.unwritten.push({ game, cost, done });
      this.scheduled ??= setImmediate(this.write);
    });
  }

  private readonly write = () => {
    const { live } = this;
    this.scheduled = undefined;
    const batch = this.unwritten;
    this.unwritten = [];
    if (!batch.length) return;
    const games = batch.map((b) => b.game);
    // a refused write is tried once more; if it fails again, the run stops calling and the games (paid for)
    // are kept for the spill (the play loop's end), never counted as failed calls
    const insert = () =>
      live.store.games
        .insertMany(games)
        .catch(() =>
          new Promise((r) => setTimeout(r, RETRY_WRITE_MS)).then(() => live.store.games.insertMany(games)),
        );
    void insert().then(
      async (stored) => {
        batch.forEach(({ game, cost }, i) => {
          if (stored[i]) live.countStored(game, cost);
          else live.countElsewhere(1);
          live.progress({ game });
        });
        for (const b of batch) b.done();
      },
      (e: unknown) => {
        live.storageFailed(e, games);
        for (const b of batch) b.done();
      },
    );
  };
}
