// `arena health --reference annotators`: with few votes the reference cannot rate the models and health says so;
// with enough it reads them like the experts' (the experts' votes cast as annotator votes give their figures).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import type { Vote } from '../../src/core/types.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';
import { MTBENCH_DIR } from '../web/fixture.ts';

/** `votes` as judge annotators: one annotator per voter (annotator_<n>, as /annotate records them). */
function asAnnotators(votes: Vote[]): (Vote & { line: number })[] {
  const ids = new Map<string, number>();
  return votes.map((v, k) => {
    if (!ids.has(v.voter)) ids.set(v.voter, ids.size + 1);
    return { ...v, judge: 'annotators', voter: `annotator_${ids.get(v.voter)}`, line: k + 1 };
  });
}

describe('arena health --reference annotators', () => {
  let few = '';
  let many = '';
  beforeAll(async () => {
    const dir = tmpDir('arena-health-annotators-');
    [few, many] = [join(dir, 'few.db'), join(dir, 'many.db')];
    for (const file of [few, many]) {
      const store = openSqliteStore(await mtbenchReleaseDb(file, MTBENCH_DIR));
      const votes =
        file === few ? (await store.votes.list('gpt-4')).slice(0, 20) : await store.votes.list('human');
      await store.importBundle({ votes: [{ source: 'annotate', items: asAnnotators(votes) }] });
      await store.close();
    }
  }, 120_000);

  it('refuses, naming the unrated models, while the annotators have too few votes to rate them', async () => {
    const r = await runArena(['health', '--db', few, '--judge', 'gpt-4', '--reference', 'annotators']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /the reference "annotators" cannot rate these models yet: in its 20 verdicts over 6 models, .+ never (lost to|beat) the others.*no finite ratings/,
    );
  });

  it('reads annotator votes like the experts: the experts cast as annotators give the experts figures', async () => {
    const health = async (reference: string) => {
      const args = ['health', '--db', many, '--judge', 'gpt-4', '--rounds', '200'];
      const r = await runArena([...args, '--reference', reference, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { reference: string }[]).map((x) => ({ ...x, reference: '' }));
    };
    const human = await health('human');
    expect(human).toHaveLength(1);
    expect(await health('annotators')).toEqual(human);
  });
});
