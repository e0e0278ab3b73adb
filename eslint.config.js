// Lint: the layering of src/ (README "Layout") as import boundaries, plus a few correctness rules.
// No stylistic rules: prettier (.prettierrc) owns the format. `npm run lint`; tests/lint.test.ts runs it in CI.
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * Which layer may import which (values and types alike), read top to bottom: core is pure and imports only
 * core; a lower layer never imports a higher one. `type:` edges admit `import type` only (a contract, not
 * code): the engine plays against the Judge and Store interfaces, never a concrete judge or database.
 * cli and entry compose everything, so they may import anything.
 */
const LAYERS = {
  core: [],
  judges: ['core'],
  generators: ['core', 'judges'],
  storage: ['core', 'db'],
  importers: ['core', 'type:storage'],
  // reports read results from the store; the engine reads them too (escalation picks matches by a judge's results)
  engine: ['core', 'type:judges', 'type:storage', 'reports'],
  reports: ['core', 'type:storage'],
  ops: ['core', 'judges', 'generators', 'storage', 'importers', 'engine', 'reports'],
  web: ['core', 'storage', 'reports'],
};
/** Files inside an allowed layer that a layer still must not import. */
const STORAGE_IMPLEMENTATIONS = [
  './src/storage/sqlite.ts',
  './src/storage/drizzle-store.ts',
  './src/storage/d1.ts',
];
const NOT_THESE = {
  // ops functions take { store, judges, config }: they use the Store contract, never open a database themselves
  ops: {
    from: STORAGE_IMPLEMENTATIONS,
    message:
      'layering: src/ops works on the Store it is given (storage/store.ts), it never opens a database (sqlite.ts, drizzle-store.ts, d1.ts)',
  },
};
/** folders a layer can name: the layers under src/ and the schema folder db/ */
const FOLDERS = [...Object.keys(LAYERS), 'cli', 'entry', 'db'];
const where = (f) => (f === 'db' ? 'db' : `src/${f}`);

/** Libraries a layer must not import: each belongs behind one adapter (storage, judges, generators, web). */
const DB = ['better-sqlite3', 'drizzle-orm', 'drizzle-orm/*'];
const HTTP = ['hono', 'hono/*', '@hono/*'];
const MODELS = ['openai', 'openai/*', 'node-llama-cpp'];
const BANNED = {
  core: [...DB, ...HTTP, ...MODELS],
  judges: [...DB, ...HTTP],
  generators: [...DB, ...HTTP],
  storage: [...HTTP, ...MODELS],
  importers: [...DB, ...HTTP, ...MODELS],
  engine: [...DB, ...HTTP, ...MODELS],
  reports: [...DB, ...HTTP, ...MODELS],
  ops: [...DB, ...HTTP, ...MODELS],
  web: [...DB, ...MODELS],
};

/**
 * What touches the process: child processes, V8 flags, the process module itself, and the host's folders and
 * identity in node:os (the CPU count, a property of the machine, stays allowed). Only src/cli and src/entry import
 * these; the layers below take the values as parameters.
 */
const PROCESS_MESSAGE =
  'only src/cli (and src/entry) touch the process: read it there and pass the value down (eslint.config.js PROCESS)';
const PROCESS = [
  {
    group: ['node:child_process', 'child_process', 'node:v8', 'v8', 'node:process', 'process'],
    message: PROCESS_MESSAGE,
  },
  {
    group: ['node:os', 'os'],
    importNames: ['homedir', 'tmpdir', 'hostname', 'userInfo', 'setPriority'],
    message: PROCESS_MESSAGE,
  },
];

const boundaries = Object.entries(LAYERS).map(([layer, allowed]) => {
  const open = new Set(allowed.map((a) => a.replace(/^type:/, '')));
  const typeOnly = allowed.filter((a) => a.startsWith('type:')).map((a) => a.slice(5));
  return {
    name: `boundaries/${layer}`,
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: `./src/${layer}`,
              from: FOLDERS.filter((f) => f !== layer && !open.has(f)).map((f) => `./${where(f)}`),
              message: `layering: src/${layer} may import ${allowed.length ? allowed.join(', ') : 'only src/core'} (eslint.config.js LAYERS)`,
            },
            ...(NOT_THESE[layer] ? [{ target: `./src/${layer}`, ...NOT_THESE[layer] }] : []),
          ],
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ...typeOnly.map((f) => ({
              regex: `^(\\.\\./)+${f}/`,
              allowTypeImports: true,
              message: `layering: src/${layer} may import only types from src/${f} (import type): it works through the interface, not an implementation`,
            })),
            ...PROCESS,
            ...(BANNED[layer].length
              ? [
                  {
                    group: BANNED[layer],
                    message: `layering: src/${layer} does not use this library; it lives behind its own adapter layer (eslint.config.js BANNED)`,
                  },
                ]
              : []),
          ],
        },
      ],
    },
  };
});

export default tseslint.config(
  { ignores: ['src/web/views.gen.ts'] },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importX },
    settings: {
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json'] })],
    },
    // the code's existing directives name rules this small set leaves off (e.g. no-explicit-any)
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      // correctness, not style
      'no-dupe-keys': 'error',
      'no-duplicate-case': 'error',
      'no-fallthrough': 'error',
      'no-self-assign': 'error',
      'no-self-compare': 'error',
      'no-unreachable': 'error',
      'no-unsafe-finally': 'error',
      'no-unsafe-negation': 'error',
      'no-sparse-arrays': 'error',
      'no-debugger': 'error',
      'use-isnan': 'error',
      'valid-typeof': 'error',
      'no-cond-assign': ['error', 'except-parens'],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'none',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
          caughtErrors: 'none',
        },
      ],
      'import-x/no-self-import': 'error',
    },
  },
  // pure core: no Node built-ins (it runs in a Worker and in the browser-free tests alike)
  {
    name: 'boundaries/core-pure',
    files: ['src/core/**/*.ts'],
    rules: { 'import-x/no-nodejs-modules': 'error' },
  },
  // the site also runs as a Cloudflare Worker (src/entry/worker.ts): no Node built-ins there either
  {
    name: 'boundaries/web-worker',
    files: ['src/web/**/*.ts'],
    rules: { 'import-x/no-nodejs-modules': 'error' },
  },
  ...boundaries,
  {
    name: 'boundaries/ops-through-store',
    files: ['src/ops/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'MemberExpression[object.property.name="sqlite"][property.name=/^(prepare|exec|pragma|transaction|backup|serialize|function|inTransaction)$/]',
          message:
            'layering: src/ops goes through the Store interface, not the raw SQLite handle (store.sqlite)',
        },
      ],
    },
  },
  // rooms a reader can hold: no file in src over 400 lines, no function over 120 (blank lines and comments count)
  {
    name: 'sizes',
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  // being split by what they do (each into steps of its own); drop the exemption with the split
  {
    name: 'sizes/being-split',
    files: ['src/cli/commands/run.ts', 'src/ops/batch.ts'],
    rules: { 'max-lines': 'off', 'max-lines-per-function': 'off' },
  },
  // one place prints: the CLI (and the entry points); the layers below return values or call `log`
  {
    name: 'boundaries/no-printing',
    files: ['src/{core,judges,generators,storage,importers,engine,reports,ops}/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  // only the CLI (and the entry points) touch the process: environment, arguments, exit, output, pid, signals;
  // what the layers below need of it (API keys, folders, an owner, liveness) is passed down as values
  {
    name: 'boundaries/process-in-cli',
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**', 'src/entry/**'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: PROCESS_MESSAGE }],
      'no-restricted-properties': [
        'error',
        { object: 'globalThis', property: 'process', message: PROCESS_MESSAGE },
        { object: 'global', property: 'process', message: PROCESS_MESSAGE },
      ],
    },
  },
  // the one adapter below the CLI that looks at `process`: the game-id digest asks the runtime for node:crypto
  // (process.getBuiltinModule) because core imports no platform module; it reads no environment, argument or state
  {
    name: 'boundaries/process-in-cli/sha256',
    files: ['src/core/sha256.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
