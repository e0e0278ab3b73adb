// A missing or refused API key (issue 12, item 14): checked before anything starts, the first 401/403 stops the run
// with one message and no retries, and a key echoed back never reaches `attempts` or the terminal.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/judges/redact.ts';
import { startOpenAIServer } from '../support/openai-server.ts';
import { OWN, runArena, tmpDir } from '../support/cli.ts';

const MODELS = ['--models', 'arena-sage,arena-swift,arena-echo'];

describe('redactSecrets', () => {
  it('removes the known key wherever it occurs, and key- or token-shaped strings', () => {
    expect(
      redactSecrets('Incorrect API key provided: Bearer my-own-key-1234 (my-own-key-1234)', [
        'my-own-key-1234',
      ]),
    ).toBe('Incorrect API key provided: Bearer [redacted] ([redacted])');
    expect(redactSecrets('key sk-proj-abcDEF123456 was refused')).toBe('key sk-[redacted] was refused');
    expect(redactSecrets('Authorization: Bearer abc.def.ghi')).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('HTTP 500: injected fault 500')).toBe('HTTP 500: injected fault 500');
  });
});

describe('API keys', { timeout: 120_000 }, () => {
  it('no OPENAI_API_KEY and no --base-url: a clear error at once, and no database is created', async () => {
    const dir = tmpDir();
    const t0 = Date.now();
    const r = await runArena(
      ['run', '--db', join(dir, 'a.db'), '--judge', 'openai/gpt-4', ...MODELS, ...OWN],
      { env: { OPENAI_API_KEY: undefined } },
    );
    expect(r.code).toBe(1);
    expect(Date.now() - t0).toBeLessThan(30_000);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^arena: OPENAI_API_KEY is not set.*--base-url/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the first 401 stops the run: one message, no retries, the echoed key is in neither attempts nor output', async () => {
    const key = 'sk-test-SECRET-0123456789abcdef';
    const srv = await startOpenAIServer({ apiKey: 'sk-the-right-one', echoKey: true });
    try {
      const db = join(tmpDir(), 'a.db');
      const r = await runArena(
        [
          'run',
          '--db',
          db,
          '--judge',
          'openai/judge',
          '--base-url',
          srv.url,
          '--concurrency',
          '4',
          '--backoff',
          '10',
          ...MODELS,
          ...OWN,
        ],
        { env: { OPENAI_API_KEY: key } },
      );
      expect(r.code, r.stderr).toBe(1);
      const refused = srv.log.filter((e) => e.status === 401).length;
      // 288 games planned; at most the calls already in flight when the first refusal came back
      expect(refused).toBeGreaterThanOrEqual(1);
      expect(refused).toBeLessThanOrEqual(4);
      expect(r.stderr.match(/HTTP 401/g)).toHaveLength(1);
      expect(r.stderr).toMatch(/the run stopped at this first refusal/);
      expect(r.stderr).not.toMatch(/SECRET|0123456789abcdef/);
      expect(r.stdout).not.toMatch(/SECRET|0123456789abcdef/);
      expect(existsSync(db)).toBe(true);
      const sqlite = new Database(db, { readonly: true });
      try {
        const attempts = sqlite.prepare('select error from attempts').all() as { error: string }[];
        expect(attempts.length).toBeGreaterThanOrEqual(1);
        for (const a of attempts) {
          expect(a.error).toMatch(/HTTP 401/);
          expect(a.error).not.toMatch(/SECRET|0123456789abcdef/);
        }
        expect(sqlite.prepare('select count(*) n from games').get()).toEqual({ n: 0 });
        expect(sqlite.prepare('select status from runs').all()).toEqual([{ status: 'failed' }]);
      } finally {
        sqlite.close();
      }
    } finally {
      await srv.close();
    }
  });
});
