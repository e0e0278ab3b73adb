// `arena import pairs` on a compact dataset.json (every item on line 1): gold votes are keyed by position, not line,
// so it imports, and to the same votes as the pretty-printed set.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arenaOk, tmpDir } from '../support/cli.ts';
import { sqlRows } from '../support/stored-game.ts';

const items = [1, 2, 3, 4].map((i) => ({
  input: `question ${i}`,
  output_1: `first answer ${i}`,
  output_2: `second answer ${i}`,
  label: (i % 2) + 1,
}));

const goldVotes = (db: string) =>
  sqlRows(db, "select question_id, winner, line from votes where judge = 'gold' order by line");

describe('import pairs', { timeout: 120_000 }, () => {
  it('a compact dataset.json (all items on line 1) imports every item; pretty JSON gives the same votes', async () => {
    const dir = tmpDir('arena-pairs-compact-');
    const sets = join(dir, 'sets');
    mkdirSync(join(sets, 'Tiny'), { recursive: true });
    writeFileSync(join(sets, 'Tiny', 'dataset.json'), JSON.stringify(items));
    const db = join(dir, 'a.db');
    expect(await arenaOk(['import', 'pairs', sets, '--db', db])).toContain('4 gold labels');
    const compact = goldVotes(db);
    expect(compact).toHaveLength(4);
    writeFileSync(join(sets, 'Tiny', 'dataset.json'), JSON.stringify(items, null, 2));
    await arenaOk(['import', 'pairs', sets, '--db', db]);
    expect(goldVotes(db)).toEqual(compact);
  });
});
