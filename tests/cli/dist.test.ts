// bin/arena.mjs runs the esbuild bundle (dist/) while it is newer than src/, else the sources through tsx: both must
// be the same command (files read beside the sources, lazy commands, the same games stored).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distFresh } from '../../bin/dist-fresh.mjs';
import { arenaJson, arenaOk, OWN, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';

const FRESH = distFresh(REPO_ROOT);
const SOURCES = { ARENA_NO_DIST: '1' };
// bin/arena.mjs in a child process each time: it is what picks the bundle or the sources

// skipped (say so) when dist/ is missing or older than src/: `npm test`'s pretest builds it
describe.skipIf(!FRESH)(
  `the bundled command (dist/) and the sources (tsx) behave the same${FRESH ? '' : ' (skipped: dist/ is missing or older than src/ or the last npm install; npm test builds it)'}`,
  () => {
    it('help, a tournament on our own files, its standings, the games it exports, and a typo', async () => {
      const results = [];
      for (const env of [{}, SOURCES]) {
        const dir = tmpDir('arena-dist-');
        const db = join(dir, 'a.db');
        const help = await arenaOk(['run', '--help'], { env, spawn: true });
        // --questions/--answers import through src/importers; --prompts arena reads questions/ beside the package
        await arenaOk(
          [
            'run',
            '--db',
            db,
            ...OWN,
            '--judge',
            'mock/random',
            '--models',
            'arena-echo,arena-sage',
            '--turns',
            '1',
          ],
          { env, spawn: true },
        );
        const standings = await arenaJson<{ model: string; win: number; loss: number; tie: number }[]>(
          ['standings', '--db', db, '--judge', 'mock/random'],
          { env, spawn: true },
        );
        await arenaOk(
          ['export', 'fastchat', '--db', db, '--judge', 'mock/random', '--out', join(dir, 'out')],
          { env, spawn: true },
        );
        const exported = readdirSync(join(dir, 'out'), { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => ({
            file: e.name,
            text: readFileSync(join(e.parentPath, e.name), 'utf8')
              .replace(/"tstamp":[\d.]+/g, '"tstamp":0')
              .split('\n')
              .sort(),
          })); // the export's time; games in the order they finished
        const typo = await runArena(['standigns', '--db', db], { env, spawn: true });
        results.push({ help, standings, exported, typo: { code: typo.code, stderr: typo.stderr } });
      }
      const [dist, sources] = results;
      expect(dist!.standings.length).toBe(2);
      expect(dist!.standings.reduce((n, r) => n + r.win + r.loss + r.tie, 0)).toBeGreaterThan(0);
      expect(dist!.typo.code).not.toBe(0);
      expect(dist!.exported.length).toBeGreaterThan(0);
      expect(
        dist!.exported.map((f) => f.text.filter(Boolean).length).reduce((a, b) => a + b),
      ).toBeGreaterThan(0);
      expect(dist).toEqual(sources);
    }, 300_000);

    it('a command that draws no chart never loads ECharts: only a dynamic import reaches it', () => {
      const text = (chunk: string) => readFileSync(join(REPO_ROOT, 'dist', chunk), 'utf8');
      /** the chunks `chunk` loads when it is imported: itself and its static imports, followed */
      const loaded = (chunk: string, seen = new Set<string>()): Set<string> => {
        seen.add(chunk);
        for (const m of text(chunk).matchAll(/^import\s(?:[^'";]*?\sfrom\s)?"\.\/([\w.-]+\.mjs)"/gm))
          if (!seen.has(m[1]!)) loaded(m[1]!, seen);
        return seen;
      };
      const usesEcharts = (chunk: string) => /from "echarts\//.test(text(chunk));
      const entry = text('arena.mjs');
      const commandChunk = (name: string) =>
        new RegExp(`^\\s+${name}: \\(\\) => import\\("\\.\\/([\\w.-]+\\.mjs)"\\)`, 'm').exec(entry)?.[1];
      for (const name of ['import', 'run', 'standings', 'reports', 'serve', 'checkpoints']) {
        const chunk = commandChunk(name);
        expect(chunk, `arena.mjs imports the ${name} command lazily`).toBeDefined();
        expect([...loaded(chunk!)].filter(usesEcharts), `what \`arena ${name}\` loads at start`).toEqual([]);
      }
      // the charts are still there, behind the dynamic import of the first chart
      const charts = readdirSync(join(REPO_ROOT, 'dist')).filter((f) => f.endsWith('.mjs') && usesEcharts(f));
      expect(charts).toHaveLength(1);
    });
  },
);
