// `arena import autoj` fetches Auto-J's constants_prompt.py (not shipped: no licence) at a pinned commit, checks its
// hash and size and builds our two schemes. Served here from a stand-in (tests/support/autoj-fixture.ts) pinned by
// its own hash; the CLI keeps the real pin, so it refuses the stand-in.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPrompt } from '../../src/core/prompts.ts';
import { AUTOJ_FILE, autojSchemes, loadAutojSchemes } from '../../src/importers/autoj.ts';
import { BUILTIN } from '../../src/importers/builtin.ts';
import { parsePrompts } from '../../src/importers/formats.ts';
import { readPythonString } from '../../src/importers/python-string.ts';
import {
  AUTOJ_DIR,
  AUTOJ_FIXTURE,
  AUTOJ_FIXTURE_PIN,
  AUTOJ_FIXTURE_START,
  AUTOJ_FIXTURE_TEXT,
} from '../support/autoj-fixture.ts';
import { OWN_QA, runArena, tmpDir } from '../support/cli.ts';
import { skipWhy } from '../support/materials.ts';
import { freePort } from '../support/port.ts';

describe('the Auto-J schemes, assembled from constants_prompt.py', () => {
  const [single, multi] = autojSchemes('constants_prompt.py', AUTOJ_FIXTURE);

  it("upstream's pairwise_tie with {prompt}, {response}, {response_another} in our slots", () => {
    expect(single!.name).toBe('autoj-pair-v1');
    expect(single).toMatchObject({ type: 'pairwise', systemPrompt: '', outputFormat: 'autoj' });
    const r = renderPrompt({
      scheme: single!,
      questionTurns: ['what is 1+0?'],
      turn: 1,
      answerA: ['1+0 is 11'],
      answerB: ['the answer is 1'],
    });
    expect(r.system).toBe('');
    expect(r.user).toBe(
      `${AUTOJ_FIXTURE_START} It's a "placeholder":\n\n[BEGIN DATA]\n***\n[Query]: what is 1+0?\n***\n[Response 1]: 1+0 is 11\n***\n[Response 2]: the answer is 1\n***\n[END DATA]\n\nFinish with "So, the final decision is Response 1 / Response 2 / Tie".`,
    );
  });

  it('our multi-turn layout: both questions in the query slot, both replies in each response slot', () => {
    expect(multi!.name).toBe('autoj-pair-v1-multi-turn');
    const r = renderPrompt({
      scheme: multi!,
      questionTurns: ['Q-ONE', 'Q-TWO'],
      turn: 2,
      answerA: ['A-ONE', 'A-TWO'],
      answerB: ['B-ONE', 'B-TWO'],
    });
    expect(r.user).toContain(
      '[Query]: Q-ONE\n\n[Follow-up Question]\nQ-TWO\n***\n[Response 1]: [Answer to the Question]\nA-ONE\n\n[Answer to the Follow-up Question]\nA-TWO\n***\n[Response 2]: [Answer to the Question]\nB-ONE\n\n[Answer to the Follow-up Question]\nB-TWO\n***\n[END DATA]',
    );
  });

  it('a file of another shape is an error naming the file, line and constant', () => {
    const bad = (text: string) => () => autojSchemes('c.py', Buffer.from(text));
    expect(bad('single = """x {prompt}"""\n')).toThrow(
      /^c\.py:1: field "pairwise_tie": no top-level assignment "pairwise_tie = \.\.\."/,
    );
    expect(bad('a = 1\n\npairwise_tie = """{prompt} {response}\n\n')).toThrow(
      /^c\.py:3: field "pairwise_tie": the string is not closed/,
    );
    expect(bad('a = 1\npairwise_tie = """{prompt}\nline \\x41"""\n')).toThrow(
      /^c\.py:3: field "pairwise_tie": unsupported escape \\x/,
    );
    expect(bad('pairwise_tie = f"{prompt}"\n')).toThrow(
      /^c\.py:1: field "pairwise_tie": expected a string literal/,
    );
    expect(bad('pairwise_tie = """{prompt} {response}""" + more\n')).toThrow(
      /^c\.py:1: field "pairwise_tie": expected the end of the line after the string/,
    );
    expect(bad('\npairwise_tie = """{prompt} {response}"""\n')).toThrow(
      /^c\.py:2: field "pairwise_tie": expected the placeholder \{response_another\} exactly once, found it 0 times/,
    );
    expect(bad('pairwise_tie = """{prompt} {response} {response_another} {extra}"""\n')).toThrow(
      /^c\.py:1: field "pairwise_tie": unexpected placeholder \{extra\}/,
    );
  });

  it('reads escapes and annotated one-line constants as Python does', () => {
    expect(readPythonString('c.py', AUTOJ_FIXTURE_TEXT, 'PROMPT_INPUT_WO_SYSTEM')).toBe(
      '[INST] {input} [/INST]',
    );
    expect(readPythonString('c.py', AUTOJ_FIXTURE_TEXT, 'PROMPT_INPUT_SYSTEM')).toBe(
      '[INST] <<SYS>>\n{system_message}\n<</SYS>>\n\n{input} [/INST]',
    );
  });
});

describe('the shipped scheme file holds no Auto-J text', () => {
  it('questions/judge_schemes.jsonl has no autoj scheme and nothing of its template', () => {
    const text = readFileSync(BUILTIN.schemes, 'utf8');
    const shipped = parsePrompts(BUILTIN.schemes, Buffer.from(text));
    expect(shipped.filter((p) => p.outputFormat === 'autoj' || p.name.startsWith('autoj'))).toEqual([]);
    expect(text).not.toContain('[BEGIN DATA]');
    expect(text).not.toContain('submitted responses');
  });
});

// ---- the download --------------------------------------------------------------------------------

interface Mirror {
  url: string;
  requests: string[];
  /** what the server sends for constants_prompt.py */
  body: Buffer;
  close(): Promise<void>;
}

async function startMirror(): Promise<Mirror> {
  const m = { requests: [] as string[], body: AUTOJ_FIXTURE } as Mirror;
  const server: Server = createServer((req, res) => {
    m.requests.push(req.url ?? '');
    if (req.url !== '/auto-j/constants_prompt.py') return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(m.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  m.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auto-j`;
  m.close = () => new Promise<void>((r) => server.close(() => r()));
  return m;
}

describe('downloading constants_prompt.py (pinned, hash-checked)', () => {
  let mirror: Mirror;
  beforeAll(async () => {
    mirror = await startMirror();
  });
  afterAll(() => mirror.close());

  it('downloads from a mirror, checks the pin, keeps the file in the cache and reads it from there next time', async () => {
    const cache = tmpDir('autoj-cache-');
    mirror.requests.length = 0;
    const got = await loadAutojSchemes({ baseUrl: mirror.url, cacheDir: cache, pin: AUTOJ_FIXTURE_PIN });
    expect(got).toEqual(autojSchemes('x', AUTOJ_FIXTURE).map((p) => ({ ...p })));
    expect(readFileSync(join(cache, 'constants_prompt.py'))).toEqual(AUTOJ_FIXTURE);
    await loadAutojSchemes({ baseUrl: mirror.url, cacheDir: cache, pin: AUTOJ_FIXTURE_PIN });
    expect(mirror.requests).toEqual(['/auto-j/constants_prompt.py']);
  });

  it('a changed byte is refused (hash mismatch) and nothing is kept', async () => {
    const cache = tmpDir('autoj-cache-');
    const changed = Buffer.from(AUTOJ_FIXTURE);
    changed[changed.indexOf('compare')] = 'C'.charCodeAt(0);
    mirror.body = changed;
    try {
      await expect(
        loadAutojSchemes({ baseUrl: mirror.url, cacheDir: cache, pin: AUTOJ_FIXTURE_PIN }),
      ).rejects.toThrow(
        new RegExp(
          `constants_prompt\\.py .*hash mismatch \\(git blob [0-9a-f]{40}, expected ${AUTOJ_FIXTURE_PIN.blob}\\)`,
        ),
      );
      expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
    } finally {
      mirror.body = AUTOJ_FIXTURE;
    }
  });

  it('offline: the error says the template is not shipped, where to get the file and how to give it', async () => {
    const port = await freePort();
    await expect(
      loadAutojSchemes({
        baseUrl: `http://127.0.0.1:${port}/auto-j`,
        cacheDir: tmpDir('autoj-cache-'),
        pin: AUTOJ_FIXTURE_PIN,
        retries: 0,
      }),
    ).rejects.toThrow(
      /download failed \(.*\): the Auto-J template is not shipped with mt-arena .*download https:\/\/raw\.githubusercontent\.com\/GAIR-NLP\/auto-j\/5e280beeedf64d631d0d6acf1808bf00ad86c69b\/codes\/usage\/constants_prompt\.py .* --dir, or a mirror with --base-url/,
    );
  });

  it('--dir: the file there is checked like a download; a missing one says where to get it', async () => {
    const dir = tmpDir('autoj-dir-');
    await expect(loadAutojSchemes({ dir, cacheDir: dir, pin: AUTOJ_FIXTURE_PIN })).rejects.toThrow(
      /constants_prompt\.py: not found; download https:\/\/raw\.githubusercontent\.com\/GAIR-NLP\/auto-j\/5e280be.* into /,
    );
    writeFileSync(join(dir, 'constants_prompt.py'), AUTOJ_FIXTURE);
    expect(await loadAutojSchemes({ dir, cacheDir: dir, pin: AUTOJ_FIXTURE_PIN })).toHaveLength(2);
    // the real pin: the stand-in is not upstream's file
    await expect(loadAutojSchemes({ dir, cacheDir: dir })).rejects.toThrow(
      new RegExp(`not the pinned file: git blob ${AUTOJ_FIXTURE_PIN.blob}, expected ${AUTOJ_FILE.blob}`),
    );
  });

  it('arena import autoj: the CLI holds the real pin, so the stand-in from a mirror is refused and no database is made', async () => {
    const db = join(tmpDir(), 'a.db');
    const r = await runArena(['import', 'autoj', '--base-url', mirror.url, '--cache', tmpDir(), '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`size/hash mismatch|hash mismatch .*expected ${AUTOJ_FILE.blob}`));
    expect(existsSync(db)).toBe(false);
  });

  it('arena run --prompts autoj without the template: an error saying how to get it, no game played', async () => {
    const db = join(tmpDir(), 'r.db');
    const r = await runArena(
      [
        'run',
        ...OWN_QA,
        '--prompts',
        'autoj',
        '--judge',
        'openai/gpt-4',
        '--mode',
        'pairwise-all',
        '--models',
        'arena-sage,arena-drift',
        '--db',
        db,
      ],
      { env: { OPENAI_API_KEY: 'test' } },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /prompt "autoj-pair-v1" is not in the database: Auto-J's template is not shipped .*run `arena import autoj --db DB`/,
    );
  });
});

// The real file is not in the repository; where one is at hand, the schemes assembled from it are the ones
// this project shipped word for word before (their SHA-256 over the imported scheme, recorded then).
skipWhy(
  'autoj-real',
  AUTOJ_DIR
    ? undefined
    : 'AUTOJ_DIR is unset: the real constants_prompt.py is not shipped (its project has no licence); set AUTOJ_DIR to a folder holding it (arena import autoj keeps it in ~/.cache/mt-arena/auto-j-5e280be) to check the assembled schemes against the ones shipped before',
);
describe.skipIf(!AUTOJ_DIR)('the real constants_prompt.py (AUTOJ_DIR)', () => {
  it('passes the pinned hash and gives the schemes shipped before, byte for byte', async () => {
    const schemes = await loadAutojSchemes({ dir: AUTOJ_DIR!, cacheDir: AUTOJ_DIR! });
    const digest = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex');
    expect(schemes.map((s) => [s.name, digest(s)])).toEqual([
      ['autoj-pair-v1', '11f7746070df018bc8d529946f66618c52dcd75de3c7452fe26f706abc36813f'],
      ['autoj-pair-v1-multi-turn', '51066393d51f243b926af223023ed8a3cc3cc5ab1a694c7f3d57d1950553f9ad'],
    ]);
  });
});
