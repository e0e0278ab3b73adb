// Start real servers for the site tests: `wrangler dev` (the Worker over a local D1, migrated by localD1) and
// free ports. Wrangler runs from its own bin script (node_modules/wrangler), without an `npx` (npm) start per call.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { onFileEnd, REPO_ROOT } from '../support/cli.ts';
import { runShared } from '../support/run-shared.ts';
import { openLocalD1 } from './local-d1.ts';
import { freePort } from '../support/port.ts';

/** wrangler's command-line entry, run with this node: `wrangler ...args` is `node WRANGLER ...args` */
const WRANGLER = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');

export const WRANGLER_ENV = {
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  NO_COLOR: '1',
  CI: '1',
};

/** `wrangler ...args` to completion; rejects with its output when it fails. */
export function wrangler(args: string[], timeoutMs = 180_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...WRANGLER_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`wrangler ${args.join(' ')} exited ${code}:\n${out.slice(-4000)}`));
    });
  });
}

/** The migrations wrangler applies (wrangler.toml's migrations_dir), in its order: by their number. */
const MIGRATIONS = join(REPO_ROOT, 'db', 'migrations');
const migrationFiles = () =>
  readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.sql'))
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10));

/**
 * What `wrangler d1 migrations apply` runs: its bookkeeping table, then each migration's statements (split at
 * `--> statement-breakpoint`) and the row recording it, as wrangler 4 writes them.
 */
export function migrationStatements(): string[] {
  const init = `CREATE TABLE IF NOT EXISTS d1_migrations(
\t\tid         INTEGER PRIMARY KEY AUTOINCREMENT,
\t\tname       TEXT UNIQUE,
\t\tapplied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`;
  return [
    init,
    ...migrationFiles().flatMap((f) => [
      ...readFileSync(join(MIGRATIONS, f), 'utf8')
        .split('--> statement-breakpoint')
        .map((st) => st.trim())
        .filter((st) => st.length > 0),
      `INSERT INTO d1_migrations (name) values ('${f}');`,
    ]),
  ];
}

/**
 * A local D1 (database mt-arena) in `<dir>/wrangler` as `wrangler d1 migrations apply --local` builds it, for
 * `--persist-to`: built once per run in one D1 batch (one migration at a time took 13 workerd starts), checked by
 * `wrangler d1 migrations apply` finding every migration applied, and copied for each caller.
 */
export async function localD1(dir: string): Promise<string> {
  const migrated = await runShared('d1-migrated', async (scratch) => {
    const d1 = await openLocalD1(scratch);
    try {
      await d1.db.batch(migrationStatements().map((st) => d1.db.prepare(st)));
    } finally {
      await d1.dispose();
    }
    const apply = await wrangler(
      ['d1', 'migrations', 'apply', 'mt-arena', '--local', '--persist-to', scratch],
      360_000,
    );
    if (!apply.includes('No migrations to apply!'))
      throw new Error(
        `wrangler d1 migrations apply found migrations that one batch did not apply:\n${apply}`,
      );
  });
  const persist = join(dir, 'wrangler');
  cpSync(migrated, persist, { recursive: true });
  return persist;
}

export interface DevServer {
  url: string;
  log(): string;
  stop(): Promise<void>;
}

/** `wrangler dev --local` on a free port over the D1 persisted in `persistTo`; resolves once /healthz answers. */
export async function wranglerDev(persistTo: string, vars: Record<string, string> = {}): Promise<DevServer> {
  const port = await freePort();
  const args = [
    WRANGLER,
    'dev',
    '--local',
    '--persist-to',
    persistTo,
    '--port',
    String(port),
    '--ip',
    '127.0.0.1',
    '--show-interactive-dev-session=false',
    '--inspector-port',
    String(await freePort()),
    ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]),
  ];
  // its own process group, so that stopping it also stops workerd and esbuild
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...WRANGLER_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  // a server whose test never stopped it (a setup that timed out after starting it) is stopped with the file
  const taken = onFileEnd(() => stop());
  const stop = async () => {
    taken();
    if (child.exitCode !== null || child.pid === undefined) return;
    const done = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    const t = setTimeout(
      () => child.pid && child.exitCode === null && process.kill(-child.pid, 'SIGKILL'),
      5000,
    );
    await done;
    clearTimeout(t);
  };
  const server: DevServer = { url, log: () => out, stop };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`wrangler dev exited ${child.exitCode}:\n${out.slice(-4000)}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer within 120 s:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return server;
}
