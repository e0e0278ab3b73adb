// The README and docs/ as a reader meets them: a short README, lines within 120 characters, links and anchors that
// resolve, every shell block marked, and the README's recipes run as written, read from the markdown.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runArena, serveArena, tmpDir } from '../support/cli.ts';
import { type DocBlock, docBlocks } from '../support/doc-blocks.ts';
import { MTBENCH_DIR } from '../support/materials.ts';

const README = join(REPO_ROOT, 'README.md');
const DOCS = join(REPO_ROOT, 'docs');
const docFiles = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => join(DOCS, f));
const ALL = [README, ...docFiles];
const rel = (f: string) => f.slice(REPO_ROOT.length);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(file: string): Set<string> {
  const out = new Set<string>();
  let fence = false;
  for (const l of readFileSync(file, 'utf8').split('\n')) {
    if (l.startsWith('```')) fence = !fence;
    else if (!fence && /^#{1,6} /.test(l)) out.add(slug(l.replace(/^#+ /, '')));
  }
  return out;
}

/** The relative links of a markdown file outside code: [text](target) and ![alt](target). */
function links(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('README and docs/', () => {
  it('the README is a guide of at most 250 lines whose quick start runs `npm start` and `npm test`', () => {
    const text = readFileSync(README, 'utf8');
    expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
    const quick = docBlocks(README).find((b) => b.heading === 'Quick start')!;
    const commands = quick.text.split('\n').map((l) => l.replace(/#.*/, '').trim());
    expect(commands).toContain('npm start');
    expect(commands).toContain('npm test');
    // the offline variant, ready to copy
    expect(text).toMatch(/^MTBENCH_DIR=\S+ JUDGE_LLAMA2_DIR=\S+ npm start$/m);
  });

  it('every line of the README and docs/*.md fits 120 characters, code blocks included', () => {
    const long = ALL.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((l, i) => ([...l].length > 120 ? [`${rel(f)}:${i + 1} (${[...l].length})`] : [])),
    );
    expect(long).toEqual([]);
  });

  it('every relative link resolves, anchors included', () => {
    const broken: string[] = [];
    for (const f of [...ALL, join(REPO_ROOT, 'questions', 'README.md')]) {
      for (const target of links(f)) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const to = path ? resolve(dirname(f), path) : f;
        if (!existsSync(to)) broken.push(`${rel(f)}: ${target} (no such file)`);
        else if (anchor && to.endsWith('.md') && !anchors(to).has(anchor))
          broken.push(`${rel(f)}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every shell block says whether a test runs it, and why not when it does not', () => {
    const unmarked = ALL.flatMap(docBlocks)
      .filter((b) => b.lang === 'sh' && (!b.marker || (b.marker === 'skip' && !b.why)))
      .map((b) => `${rel(b.file)}:${b.line}`);
    expect(unmarked).toEqual([]);
  });

  it('every JSON example parses', () => {
    for (const b of ALL.flatMap(docBlocks).filter((b) => b.marker === 'json'))
      expect(() => JSON.parse(b.text) as unknown, `${rel(b.file)}:${b.line}`).not.toThrow();
  });
});

/**
 * `npx arena ...` in a block runs runArena in this test's process: the shell function sends its arguments, cwd and
 * environment to ARENA_HERE's port over /dev/tcp and returns the command's exit status, so `set -e` still holds.
 */
const PRELUDE = `set -euo pipefail
npx() {
  if [ "$1" != arena ]; then command npx "$@"; return; fi
  shift
  local code envs
  mapfile -d '' envs < <(env -0)
  exec 3<>"/dev/tcp/127.0.0.1/$ARENA_HERE"
  printf '%s\\0' "$#" "\${#envs[@]}" "$PWD" "$@" "\${envs[@]}" >&3
  { IFS= read -r code; cat; } <&3
  exec 3<&-
  return "$code"
}
`;

/**
 * A server for the blocks' `npx arena` (PRELUDE): the arguments' count, the environment's count, the directory, the
 * arguments, the environment (NAME=value), each NUL-ended.
 */
async function arenaHere(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((sock) => {
    let got = Buffer.alloc(0);
    const take = (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const fields = got.toString('utf8').split('\0');
      const [n, m] = [Number(fields[0]), Number(fields[1])];
      if (!(fields.length >= n + m + 4)) return;
      sock.off('data', take);
      const [cwd, ...args] = fields.slice(2, n + 3) as [string, ...string[]];
      // the block's environment as bash holds it at that line (its exports and VAR=value prefixes)
      const env = Object.fromEntries(
        fields.slice(n + 3, n + m + 3).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
      );
      runArena(args, { cwd, env }).then(
        (r) => sock.end(`${r.code ?? 1}\n${r.stdout}${r.stderr}`),
        (e: unknown) => sock.end(`1\n${String(e)}\n`),
      );
    };
    sock.on('data', take);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

async function bash(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  const here = await arenaHere();
  try {
    return await new Promise((done) => {
      const child = spawn('bash', ['-c', PRELUDE + script], {
        cwd: REPO_ROOT,
        env: { ...process.env, NO_COLOR: '1', ARENA_HERE: String(here.port), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => done({ code, out }));
    });
  } finally {
    await here.close();
  }
}

/** A block as this test runs it: its /tmp paths moved into a fresh directory, the release where it lies. */
function localise(b: DocBlock, dir: string): string {
  let text = b.text.replaceAll('/tmp/mt-arena-', `${dir}/mt-arena-`);
  if (MTBENCH_DIR) text = text.replaceAll('../shared/mt_bench', MTBENCH_DIR);
  return text;
}

const recipes = docBlocks(README).filter((b) => b.marker === 'run');

describe("the README's recipes run as written", { timeout: 600_000 }, () => {
  it('has the three jobs as recipes', () => {
    expect(recipes.map((b) => b.heading)).toEqual([
      '1. The nightly refresh',
      "2. Tracking a fine-tuning run's checkpoints",
      '3. The public leaderboard',
    ]);
  });

  it('1. the nightly refresh: plans, plays, publishes a copy, and a second run plays only the canary', async () => {
    const dir = tmpDir('arena-docs-');
    const script = localise(recipes[0]!, dir);
    const first = await bash(script, {});
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(/refresh [0-9a-f]+: OK/);
    expect(existsSync(join(dir, 'mt-arena-nightly', 'public.db'))).toBe(true);
    const again = await bash(script, {});
    expect(again.code, again.out).toBe(0);
    expect(again.out).toMatch(/pairwise-all: 0 games to play/);
    expect(again.out).toMatch(/: OK; 0 new model\(s\), 0 changed answer\(s\); 4 played, 0 failed/);
  });

  it("2. checkpoints: each checkpoint's win rate, and the chart", async () => {
    const dir = tmpDir('arena-docs-');
    const r = await bash(localise(recipes[1]!, dir), {});
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/step-1000/);
    expect(r.out).toMatch(/"winRate"/);
    expect(readFileSync(join(dir, 'mt-arena-checkpoints', 'winrate.svg'), 'utf8')).toMatch(/<svg/);
  });

  it.skipIf(!MTBENCH_DIR)(
    '3. the public leaderboard: import, standings, and the site serves it',
    async () => {
      const dir = tmpDir('arena-docs-');
      const lines = localise(recipes[2]!, dir).split('\n');
      const serve = lines.find((l) => / arena serve /.test(l))!;
      const r = await bash(lines.filter((l) => l !== serve).join('\n'), {});
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/^gpt-4\s/m);
      // the server line as written, on a free port, until the home page answers
      const args = serve.replace(/#.*/, '').trim().split(/\s+/).slice(2);
      const site = await serveArena(args.map((a, i) => (args[i - 1] === '--port' ? '0' : a)));
      try {
        const home = await fetch(`${site.url}/`);
        expect(home.status).toBe(200);
        expect(await home.text()).toMatch(/claude-v1/);
      } finally {
        await site.stop();
      }
    },
  );
});
