// `arena run` writing to a pipe: plain lines, no progress frames or escape codes, retries told in few lines
// against a server answering many 500s and 429s, whose log is the count of faults.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { retryLog } from '../../src/judges/retry-log.ts';
import { OWN, runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer } from '../support/openai-server.ts';

describe('arena run into a log file', () => {
  it('writes plain lines, and one line per kind of fault instead of one per retry', async () => {
    const dir = tmpDir('arena-run-log-');
    const srv = await startOpenAIServer({
      latencyMs: 2,
      verdict: 'longer',
      seed: 7,
      faults: [
        { status: 500, probability: 0.3 },
        { status: 429, retryAfter: 0, probability: 0.3 },
      ],
    });
    try {
      const r = await runArena(
        [
          'run',
          '--db',
          join(dir, 'arena.db'),
          '--judge',
          'openai/judge',
          '--base-url',
          srv.url,
          '--models',
          'arena-sage,arena-swift',
          '--turn',
          '1',
          '--backoff',
          '1',
          '--retries',
          '20',
          ...OWN,
        ],
        { env: { OPENAI_API_KEY: 'sk-test' } },
      );
      expect(r.code, r.stderr).toBe(0);
      const faults = srv.log.filter((e) => e.status === 500 || e.status === 429);
      const of500 = faults.filter((e) => e.status === 500).length;
      const of429 = faults.length - of500;
      expect(of500).toBeGreaterThan(10);
      expect(of429).toBeGreaterThan(10);
      // plain lines: no carriage returns, no escape codes, no bar glyphs
      expect(r.stderr).not.toMatch(/[\r\u001b█░]/);
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines.every((l) => l.trim() === l && l.length > 0)).toBe(true);
      // retries: the first of each kind, and one line counting the rest (the run is shorter than a minute)
      const retryLines = lines.filter((l) => /\bretr(y|ies)\b/.test(l));
      expect(retryLines.length, retryLines.join('\n')).toBeLessThanOrEqual(4);
      const told = (kind: string) => {
        const first = retryLines.filter(
          (l) => /^\[openai\/judge\] retry \d+ in /.test(l) && l.includes(kind),
        ).length;
        const more = retryLines
          .map((l) => l.match(new RegExp(`(\\d+) more retr(?:y|ies) after ${kind} `)))
          .reduce((s, m) => s + (m ? Number(m[1]) : 0), 0);
        return first + more;
      };
      // every fault the server answered was retried, and is counted in the log
      expect(told('HTTP 500')).toBe(of500);
      expect(told('HTTP 429')).toBe(of429);
    } finally {
      await srv.close();
    }
  });
});

describe('the retry log', () => {
  it('tells the first retry of a kind at once, then one line per kind per window, and what is left at flush', () => {
    const lines: string[] = [];
    const timers: { fn: () => void; live: boolean }[] = [];
    const log = retryLog('[j]', (l) => lines.push(l), {
      windowMs: 60_000,
      setTimer: (fn) => {
        const t = { fn, live: true };
        timers.push(t);
        return () => (t.live = false);
      },
    });
    const tick = () => {
      for (const t of timers.splice(0)) if (t.live) t.fn();
    };
    for (let i = 1; i <= 50; i++) log.retry('HTTP 429', `retry ${i}: 429`);
    log.retry('HTTP 500', 'retry 1: 500');
    expect(lines).toEqual(['[j] retry 1: 429', '[j] retry 1: 500']);
    tick(); // a minute: the 429s counted get one line; the 500s' window was quiet and closes
    expect(lines.slice(2)).toEqual([
      '[j] 49 more retries after HTTP 429 in the last 60 s; the last: retry 50: 429',
    ]);
    log.retry('HTTP 429', 'retry 51: 429'); // in the 429s' next window: counted
    log.retry('HTTP 500', 'retry 2: 500'); // the 500s' window had closed: told at once
    expect(lines.slice(3)).toEqual(['[j] retry 2: 500']);
    log.flush();
    expect(lines.slice(4)).toEqual([
      '[j] 1 more retry after HTTP 429 in the last 60 s; the last: retry 51: 429',
    ]);
  });
});
