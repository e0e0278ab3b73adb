// The lint runs in CI through this test: src/ with no error beyond KNOWN below, and the import-boundary rule shown to
// fire on deliberate violations (code linted as if under src/core, src/engine, ...; nothing written).
import { ESLint, type Linter } from 'eslint';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/cli.ts';

/**
 * Accepted lint errors, as `file: rule: import or construct`: none today. A new violation fails at once; an
 * entry here must name a fix in progress and be deleted with it. Empty means `npm run lint` passes.
 */
const KNOWN: string[] = [];

/** `file: rule: what` for one error (what: the import named in the message, else the rule's subject) */
function key(file: string, m: Linter.LintMessage): string {
  const named = /(?:path "([^"]+)"|'([^']+)' import)/.exec(m.message);
  const what = named
    ? (named[1] ?? named[2])
    : m.ruleId === 'no-restricted-syntax'
      ? 'store.sqlite'
      : m.message;
  return `${relative(REPO_ROOT, file)}: ${m.ruleId ?? 'parse'}: ${what}`;
}

/**
 * Earlier lint and format results, kept outside the clone (per user) and keyed by content only, so a clone or
 * worktree with other bytes checks again; an unusable cache costs time, nothing else.
 */
const CACHE_DIR = join(tmpdir(), `mt-arena-lint-${userInfo().uid}`);

function readCache<T>(name: string): T | undefined {
  try {
    return JSON.parse(readFileSync(join(CACHE_DIR, name), 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function writeCache(name: string, value: unknown): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = join(CACHE_DIR, `${name}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(value));
    renameSync(tmp, join(CACHE_DIR, name)); // whole or not at all, with other runs writing beside this one
  } catch {
    // the next run checks again
  }
}

/**
 * What a src/ file's lint depends on besides its path and bytes: the linters, config, lock and the names of the files
 * imports can resolve to (src/, db/). A file added, removed or renamed relints everything.
 */
function lintContextKey(): string {
  const h = createHash('sha256').update(ESLint.version);
  for (const f of ['eslint.config.js', 'package-lock.json', 'package.json', 'tsconfig.json'])
    h.update(`\0${f}\0`).update(readFileSync(join(REPO_ROOT, f)));
  for (const dir of ['src', 'db'])
    for (const f of readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' }).sort())
      h.update(`\0${dir}/${f}`);
  return h.digest('hex');
}

/** The files `eslint src` lints (and some it skips, which lint to nothing), relative to the repository. */
async function lintedFiles(): Promise<string[]> {
  const all = readdirSync(join(REPO_ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.[cm]?[jt]s$/.test(f))
    .map((f) => `src/${f}`)
    .sort();
  const ignored = await Promise.all(all.map((f) => eslint.isPathIgnored(join(REPO_ROOT, f))));
  return all.filter((_, i) => !ignored[i]);
}

/** The cache key of one file's lint: the context (lintContextKey), its path and its bytes. */
const fileLintKey = (context: string, file: string): string =>
  createHash('sha256')
    .update(`${context}\0${file}\0`)
    .update(readFileSync(join(REPO_ROOT, file)))
    .digest('hex');

/** How many files' results the lint cache keeps (this run's and the latest others', for worktrees and branches). */
const LINT_CACHE_ENTRIES = 5000;

const eslint = new ESLint({ cwd: REPO_ROOT });

/** The errors eslint reports for `code` as if it were the file `path` (relative to the repository). */
async function lintAs(path: string, code: string): Promise<{ rule: string | null; message: string }[]> {
  const [r] = await eslint.lintText(code, { filePath: join(REPO_ROOT, path) });
  return r!.messages.filter((m) => m.severity === 2).map((m) => ({ rule: m.ruleId, message: m.message }));
}
const rules = async (path: string, code: string) => (await lintAs(path, code)).map((m) => m.rule);

describe('lint (eslint.config.js)', { timeout: 600_000 }, () => {
  let found: string[];
  beforeAll(async () => {
    const context = lintContextKey();
    const files = await lintedFiles();
    const keys = new Map(files.map((f) => [f, fileLintKey(context, f)]));
    const cache = readCache<Record<string, string[]>>('eslint-files.json') ?? {};
    const known = (f: string) => Array.isArray(cache[keys.get(f)!]);
    const stale = files.filter((f) => !known(f));
    const results = stale.length ? await eslint.lintFiles(stale.map((f) => join(REPO_ROOT, f))) : [];
    const fresh = new Map<string, string[]>(stale.map((f) => [f, []]));
    for (const r of results)
      fresh.set(
        relative(REPO_ROOT, r.filePath),
        r.messages.filter((m) => m.severity === 2).map((m) => key(r.filePath, m)),
      );
    found = files.flatMap((f) => fresh.get(f) ?? cache[keys.get(f)!]!).sort();
    // this tree's files last, so that pruning drops the oldest entries of other trees first
    const mine = Object.fromEntries(files.map((f) => [keys.get(f)!, fresh.get(f) ?? cache[keys.get(f)!]!]));
    const others = Object.entries(cache).filter(([k]) => !(k in mine));
    writeCache(
      'eslint-files.json',
      Object.fromEntries([
        ...others.slice(Math.max(0, others.length - (LINT_CACHE_ENTRIES - files.length))),
        ...Object.entries(mine),
      ]),
    );
  }, 600_000);

  it('src/ has no lint error beyond the KNOWN list (empty)', () => {
    const known = [...KNOWN].sort();
    const unexpected = found.filter((k) => !known.includes(k));
    expect(unexpected, 'new lint errors (run `npm run lint`)').toEqual([]);
    expect(found, 'a KNOWN violation is fixed: delete it from KNOWN in tests/lint.test.ts').toEqual(known);
  });

  it('core is pure: a Node built-in, a database, an HTTP library or another layer imported into src/core fails', async () => {
    expect(
      await rules(
        'src/core/probe.ts',
        "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n",
      ),
    ).toEqual(['import-x/no-nodejs-modules']);
    expect(
      await rules('src/core/stats/probe.ts', "import { join } from 'path';\nexport const f = join;\n"),
    ).toEqual(['import-x/no-nodejs-modules']);
    const store = await lintAs(
      'src/core/probe.ts',
      "import type { Store } from '../storage/store.ts';\nexport type S = Store;\n",
    );
    expect(store.map((m) => m.rule)).toEqual(['import-x/no-restricted-paths']);
    expect(store[0]!.message).toMatch(/src\/core may import only src\/core/);
    expect(
      await rules('src/core/probe.ts', "import { eq } from 'drizzle-orm';\nexport const f = eq;\n"),
    ).toEqual(['@typescript-eslint/no-restricted-imports']);
    expect(
      await rules('src/core/probe.ts', "import { Hono } from 'hono';\nexport const f = Hono;\n"),
    ).toEqual(['@typescript-eslint/no-restricted-imports']);
    // what core may use: itself and pure libraries
    expect(
      await rules(
        'src/core/probe.ts',
        "import { sha256 } from '@noble/hashes/sha2.js';\nimport { ArenaError } from './types.ts';\nexport const f = [sha256, ArenaError];\n",
      ),
    ).toEqual([]);
  });

  it('the engine uses the Judge and Store contracts: types only, never an implementation or the importers', async () => {
    expect(
      await rules(
        'src/engine/probe.ts',
        "import type { Store } from '../storage/store.ts';\nimport type { JudgeProvider } from '../judges/judge.ts';\nexport type S = [Store, JudgeProvider];\n",
      ),
    ).toEqual([]);
    expect(
      await rules(
        'src/engine/probe.ts',
        "import { openSqliteStore } from '../storage/sqlite.ts';\nexport const f = openSqliteStore;\n",
      ),
    ).toEqual(['@typescript-eslint/no-restricted-imports']);
    expect(
      await rules(
        'src/engine/probe.ts',
        "import { createJudge } from '../judges/registry.ts';\nexport const f = createJudge;\n",
      ),
    ).toEqual(['@typescript-eslint/no-restricted-imports']);
    expect(
      await rules(
        'src/engine/probe.ts',
        "import { importFiles } from '../importers/import.ts';\nexport const f = importFiles;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
  });

  it('importers do not import the engine; nothing below the CLI imports the CLI; ops do not import web', async () => {
    expect(
      await rules(
        'src/importers/probe.ts',
        "import { planRun } from '../engine/run.ts';\nexport const f = planRun;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await rules(
        'src/reports/probe.ts',
        "import { print } from '../cli/shared.ts';\nexport const f = print;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await rules(
        'src/ops/probe.ts',
        "import { createApp } from '../web/app.ts';\nexport const f = createApp;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
    expect(
      await rules(
        'src/web/probe.ts',
        "import { refresh } from '../ops/refresh/index.ts';\nexport const f = refresh;\n",
      ),
    ).toEqual(['import-x/no-restricted-paths']);
    // the CLI composes everything
    expect(
      await rules(
        'src/cli/probe.ts',
        "import { refresh } from '../ops/refresh/index.ts';\nimport { createApp } from '../web/app.ts';\nimport { openSqliteStore } from '../storage/sqlite.ts';\nexport const f = [refresh, createApp, openSqliteStore];\n",
      ),
    ).toEqual([]);
  });

  it('only the CLI prints and exits', async () => {
    expect(
      await rules(
        'src/engine/probe.ts',
        "export function f() {\n  console.log('x');\n  process.exit(1);\n}\n",
      ),
    ).toEqual(['no-console', 'no-restricted-globals']);
    expect(
      await rules('src/cli/probe.ts', "export function f() {\n  console.log('x');\n  process.exit(1);\n}\n"),
    ).toEqual([]);
  });

  it('only the CLI and the entry touch the process: env, pid, child processes, V8 flags, host folders', async () => {
    const PROCESS_USES = [
      'export const key = process.env.OPENAI_API_KEY;\n',
      'export const pid = process.pid;\n',
      'export const alive = (pid: number) => process.kill(pid, 0);\n',
      'export const env = globalThis.process.env;\n',
      "import { execFileSync } from 'node:child_process';\nexport const f = execFileSync;\n",
      "import v8 from 'node:v8';\nexport const f = () => v8.setFlagsFromString('--stack-size=4000');\n",
      "import { argv } from 'node:process';\nexport const a = argv;\n",
      "import { tmpdir } from 'node:os';\nexport const t = tmpdir();\n",
      "import { homedir, hostname } from 'os';\nexport const h = [homedir(), hostname()];\n",
    ];
    for (const layer of ['core', 'judges', 'storage', 'importers', 'engine', 'reports', 'ops', 'web'])
      for (const code of PROCESS_USES) {
        const found = await lintAs(`src/${layer}/probe.ts`, code);
        const process = found.filter((m) =>
          /only src\/cli \(and src\/entry\) touch the process/.test(m.message),
        );
        expect(process.length, `src/${layer}: ${code}`).toBeGreaterThan(0);
      }
    // the CLI and the entry read the process and pass values down
    for (const where of ['src/cli/probe.ts', 'src/entry/probe.ts'])
      for (const code of PROCESS_USES) expect(await rules(where, code), `${where}: ${code}`).toEqual([]);
    // the machine's CPU count is not the process: a judge's default threads read it
    expect(
      await rules(
        'src/judges/probe.ts',
        "import { availableParallelism } from 'node:os';\nexport const n = availableParallelism();\n",
      ),
    ).toEqual([]);
  });

  it('rooms a reader can hold: a file in src over 400 lines or a function over 120 fails', async () => {
    const fn = (name: string, body: number) =>
      `export function ${name}(): number {\n  let x = 0;\n${'  x += 1;\n'.repeat(body - 4)}  return x;\n}\n`;
    // a function of exactly 120 lines passes, 121 fails
    expect(fn('f', 120).split('\n').length - 1).toBe(120);
    expect(await rules('src/engine/probe.ts', fn('f', 120))).toEqual([]);
    expect(await rules('src/engine/probe.ts', fn('f', 121))).toEqual(['max-lines-per-function']);
    // 400 lines pass, 401 fail (blank lines and comments count)
    const file = (lines: number) => `${fn('f', 100)}${'// note\n'.repeat(lines - 100)}`;
    expect(await rules('src/reports/probe.ts', file(400))).toEqual([]);
    expect(await rules('src/reports/probe.ts', file(401))).toEqual(['max-lines']);
    // the CLI and the entry are held to the same sizes
    expect(await rules('src/cli/probe.ts', fn('f', 121))).toEqual(['max-lines-per-function']);
    expect(await rules('src/entry/probe.ts', file(401))).toEqual(['max-lines']);
  });
});

/** Every comment of a TypeScript source, with the line it starts on (a comment's marker inside a string is rare
 * enough in src/ that this plain scan reads no string as a comment there; the test below would name it). */
function commentsOf(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  for (const m of text.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g))
    out.push({ line: text.slice(0, m.index).split('\n').length, text: m[0] });
  return out;
}

/** What a code comment must not carry: an issue or pull-request number, or a date (they go to commits and docs). */
const DATED = [
  { what: 'an issue number', re: /\b(?:issues?|PR|pull request) ?#?\d+|(?<![\w&])#\d{1,4}\b/i },
  // a date an output example spells in quotes ("2026-11-22 19:51 UTC") is not a dated figure
  { what: 'a date', re: /(?<!")\b20\d\d-\d\d-\d\d\b/ },
];

describe('code comments (src/)', () => {
  it('cite no issue numbers and no dates: figures and history go to docs/performance.md and the commits', async () => {
    const { execFileSync } = await import('node:child_process');
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'src'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => f.endsWith('.ts') && f !== 'src/web/views.gen.ts');
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const f of files)
      for (const c of commentsOf(readFileSync(join(REPO_ROOT, f), 'utf8')))
        for (const { what, re } of DATED) {
          const m = re.exec(c.text);
          if (m) found.push(`${f}:${c.line}: ${what}: ${m[0]}`);
        }
    expect(found).toEqual([]);
    // the scan finds what it looks for
    const probe = commentsOf('const a = 1; // see issue 11\n/**\n * measured 2026-11-22 (#19)\n */\n');
    expect(
      probe.flatMap((c) => DATED.filter((d) => d.re.test(c.text)).map((d) => `${c.line}: ${d.what}`)),
    ).toEqual(['1: an issue number', '2: an issue number', '2: a date']);
  });
});

/** Files prettier found formatted, by content (see CACHE_DIR): a key is the hash of prettier's version, the
 * file's resolved options, its path in the repository (not on the disk: a clone elsewhere finds the same keys)
 * and its text; each run writes back only its own keys. */
const FORMAT_CACHE = 'prettier-formatted.json';

/** Whether prettier leaves `text` (the file `path`) as it is; a key in `cached` stands for a check that passed. */
async function formatted(
  prettier: typeof import('prettier'),
  path: string,
  text: string,
  cached: Set<string>,
  passed: Set<string>,
): Promise<boolean> {
  const config = await prettier.resolveConfig(path);
  const options = { ...config, filepath: path };
  const key = createHash('sha256')
    .update(JSON.stringify([prettier.version, config, relative(REPO_ROOT, path)]))
    .update('\0')
    .update(text)
    .digest('hex');
  if (cached.has(key) || (await prettier.check(text, options))) {
    passed.add(key);
    return true;
  }
  return false;
}

describe('format (.prettierrc)', { timeout: 600_000 }, () => {
  it('every source, test, bench and script file is as prettier writes it (`npm run format` fixes it)', async () => {
    const prettier = await import('prettier');
    const { execFileSync } = await import('node:child_process');
    const files = execFileSync(
      'git',
      [
        'ls-files',
        '--cached',
        '--others',
        '--exclude-standard',
        'src',
        'tests',
        'bench',
        'scripts',
        'db',
        'bin',
        'eslint.config.js',
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    )
      .split('\n')
      .filter((f) => /\.(ts|mts|js|mjs)$/.test(f));
    expect(files.length).toBeGreaterThan(100);
    const keys = readCache<unknown>(FORMAT_CACHE);
    const cached = new Set(Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : []);
    const passed = new Set<string>();
    const unformatted: string[] = [];
    for (const f of files) {
      const path = join(REPO_ROOT, f);
      if ((await prettier.getFileInfo(path, { ignorePath: join(REPO_ROOT, '.prettierignore') })).ignored)
        continue;
      if (!(await formatted(prettier, path, readFileSync(path, 'utf8'), cached, passed))) unformatted.push(f);
    }
    writeCache(FORMAT_CACHE, [...passed]);
    expect(unformatted, 'files prettier would change (run `npm run format`)').toEqual([]);
    // a cached file with one space put before it is checked again, and fails
    const probe = join(
      REPO_ROOT,
      files.find((f) => f.startsWith('src/'))!,
    );
    const text = readFileSync(probe, 'utf8');
    expect(await formatted(prettier, probe, text, passed, new Set())).toBe(true);
    expect(await formatted(prettier, probe, ` ${text}`, passed, new Set())).toBe(false);
  });
});
