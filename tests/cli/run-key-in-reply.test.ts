// A judge server echoing the Authorization header into its replies: the key never reaches the stored games (which
// `arena publish` ships); each occurrence is counted and the run warns once.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { redactReply } from '../../src/judges/redact.ts';
import { startOpenAIServer } from '../support/openai-server.ts';
import { OWN, runArena, tmpDir } from '../support/cli.ts';
import { HAVE_MTBENCH, writeConfig } from '../ops/helpers.ts';

describe('redactReply', () => {
  it('replaces the configured key (and so `Bearer <key>`) and counts it; nothing else in a reply changes', () => {
    expect(redactReply('Authorization: Bearer k-123456 then k-123456', ['k-123456'])).toEqual({
      text: 'Authorization: Bearer [redacted] then [redacted]',
      redactions: 2,
    });
    const own = 'Basic arithmetic with sk-learn; Bearer bonds. [[A]]';
    expect(redactReply(own, ['k-123456', undefined])).toEqual({ text: own, redactions: 0 });
  });
});

describe('a server that puts the API key in its replies', { timeout: 180_000 }, () => {
  it('the stored replies hold [redacted], the verdicts stand, and the run warns once with the count', async () => {
    const key = 'sk-test-ECHOED-0123456789abcdef';
    const srv = await startOpenAIServer({ apiKey: key, echoKeyInReply: true });
    try {
      const db = join(tmpDir(), 'a.db');
      const args = ['run', '--db', db, '--judge', 'openai/judge', '--base-url', srv.url, '--turns', '1'];
      const r = await runArena([...args, '--models', 'arena-sage,arena-echo', ...OWN], {
        env: { OPENAI_API_KEY: key },
      });
      expect(r.code, r.stderr).toBe(0);
      const sqlite = new Database(db, { readonly: true });
      try {
        const games = sqlite.prepare('select reply, verdict from games').all() as {
          reply: string;
          verdict: string;
        }[];
        expect(games.length).toBeGreaterThan(0);
        for (const g of games) {
          expect(g.reply).not.toContain(key);
          expect(g.reply).toMatch(/^You sent Authorization: Bearer \[redacted\]\n/);
          expect(g.verdict).not.toBe('error');
        }
        const warnings = r.stderr.split('\n').filter((l) => /API key/.test(l));
        expect(warnings).toEqual([
          `warning: the judge's server put the API key in ${games.length} place(s) of its replies; it was replaced by [redacted] before they were stored`,
        ]);
      } finally {
        sqlite.close();
      }
      expect(r.stdout + r.stderr).not.toContain(key);
    } finally {
      await srv.close();
    }
  });

  it.skipIf(!HAVE_MTBENCH)(
    'arena refresh: the stored replies hold [redacted], and it warns with the count',
    async () => {
      const key = 'sk-test-REFRESH-ECHO-0123456789';
      const srv = await startOpenAIServer({ apiKey: key, echoKeyInReply: true });
      try {
        const dir = tmpDir();
        const cfg = writeConfig(dir, { url: srv.url, models: ['alpaca-13b', 'claude-v1'] });
        const r = await runArena(['refresh', '--config', cfg], { env: { OPENAI_API_KEY: key } });
        expect(r.code, r.stderr).toBe(0);
        const sqlite = new Database(join(dir, 'arena.db'), { readonly: true });
        try {
          const replies = sqlite.prepare('select reply from games').all() as { reply: string }[];
          expect(replies.length).toBeGreaterThan(0);
          for (const g of replies) expect(g.reply).toMatch(/^You sent Authorization: Bearer \[redacted\]\n/);
          expect(r.stderr.split('\n').filter((l) => /API key/.test(l))).toEqual([
            `[openai/judge] warning: the judge's server put the API key in ${replies.length} place(s) of its replies; it was replaced by [redacted] before they were stored`,
          ]);
        } finally {
          sqlite.close();
        }
        expect(r.stdout + r.stderr).not.toContain(key);
      } finally {
        await srv.close();
      }
    },
  );
});
