// `arena checkpoints add` appends a checkpoint checked as the loader checks it, the rest byte for byte, a refusal
// leaving the file unchanged; and the loader's rules: unique names, steps, models; `watch.dir` files.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCheckpointsConfig } from '../../src/ops/checkpoints-config.ts';
import { REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';

const Q = join(REPO_ROOT, 'questions');
const ECHO = join(Q, 'answers', 'arena-echo.jsonl');
const SWIFT = join(Q, 'answers', 'arena-swift.jsonl');

/** A config written by hand: comments, odd spacing, fields after the list; `list` is its checkpoints text. */
function handWritten(list: string): string {
  return `{
  "$comment": "written by hand; \\"add\\" must keep this",
  "db":   "ckpt.db",
  "series": "sft",
  "questions": ["${Q}/arena.jsonl"],
  "prompts": ["${Q}/judge_prompts.jsonl"],
  "promptSet": "arena",
  "baseline": { "model": "arena-sage", "answers": "${Q}/answers/arena-sage.jsonl" },
${list}
  "judges": [{ "id": "mock/longer" }]
}
`;
}

const add = (cfg: string, ...args: string[]) =>
  runArena(['checkpoints', 'add', '--config', cfg, ...args], { cwd: REPO_ROOT });

describe('arena checkpoints add', () => {
  it('appends one line, indented like the list, and changes nothing else', async () => {
    const dir = tmpDir('arena-ckpt-add-');
    const cfg = join(dir, 'checkpoints.json');
    const before = handWritten(
      `  "checkpoints": [\n    { "name": "s1", "step": 100, "model": "arena-echo", "answers": "${ECHO}" }\n  ],`,
    );
    writeFileSync(cfg, before);
    mkdirSync(join(dir, 'answers'));
    copyFileSync(SWIFT, join(dir, 'answers', 'step-200.jsonl'));
    const r = await add(
      cfg,
      '--name',
      's2',
      '--step',
      '200',
      '--answers',
      join(dir, 'answers', 'step-200.jsonl'),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`added checkpoint "s2" (step 200) to ${cfg}: 2 checkpoint(s)\n`);
    const after = readFileSync(cfg, 'utf8');
    // inside the config's directory the path is written relative to it; the model is the file's name
    const line = `    { "name": "s2", "step": 200, "model": "step-200", "answers": "answers/step-200.jsonl" }`;
    expect(after).toBe(before.replace(`"answers": "${ECHO}" }\n`, `"answers": "${ECHO}" },\n${line}\n`));
    const c = loadCheckpointsConfig(cfg).config;
    expect(c.checkpoints.map((k) => [k.name, k.step, k.model, k.answers])).toEqual([
      ['s1', 100, 'arena-echo', ECHO],
      ['s2', 200, 'step-200', join(dir, 'answers', 'step-200.jsonl')],
    ]);
    expect(readdirSync(dir).sort()).toEqual(['answers', 'checkpoints.json']); // no temporary file or lock left

    // an endpoint and a GGUF + LoRA checkpoint, paths relative to the working directory
    expect(
      (
        await add(
          cfg,
          '--name',
          's3',
          '--step',
          '300',
          '--endpoint',
          'http://127.0.0.1:8000/v1',
          '--model',
          'sft-300',
        )
      ).code,
    ).toBe(0);
    const lora = join(dir, 'lora-400.gguf');
    writeFileSync(lora, 'adapter');
    // paths relative to the working directory
    const gguf = (...extra: string[]) =>
      runArena(
        [
          'checkpoints',
          'add',
          '--config',
          cfg,
          ...'--name s4 --step 400 --gguf base.gguf --lora lora-400.gguf'.split(' '),
          ...extra,
        ],
        { cwd: dir },
      );
    const g = await gguf();
    expect(g.code, g.stderr).toBe(1);
    expect(g.stderr).toBe(`arena: ${join(dir, 'base.gguf')}: no such file\n`);
    writeFileSync(join(dir, 'base.gguf'), 'base');
    const g2 = await gguf('--json');
    expect(g2.code, g2.stderr).toBe(0);
    expect(JSON.parse(g2.stdout)).toEqual({
      name: 's4',
      step: 400,
      gguf: 'base.gguf',
      lora: 'lora-400.gguf',
    });
    const k = loadCheckpointsConfig(cfg).config.checkpoints;
    expect(k.map((x) => x.name)).toEqual(['s1', 's2', 's3', 's4']);
    expect(k[2]!.endpoint).toEqual({ baseURL: 'http://127.0.0.1:8000/v1', model: 'sft-300' });
    expect(k[3]!.lora).toBe(lora);
    expect(readFileSync(cfg, 'utf8').split('\n').slice(-4)).toEqual([
      '  ],',
      '  "judges": [{ "id": "mock/longer" }]',
      '}',
      '',
    ]);
  });

  it('starts the list when it is empty or missing', async () => {
    const dir = tmpDir('arena-ckpt-add-');
    for (const list of ['  "checkpoints": [],', '']) {
      const cfg = join(dir, `c${list ? 1 : 2}.json`);
      writeFileSync(cfg, handWritten(list));
      // a config with no checkpoint yet loads (a watcher may start before the first one)
      expect(loadCheckpointsConfig(cfg).config.checkpoints).toEqual([]);
      const r = await add(cfg, '--name', 'step-100', '--step', '100', '--answers', ECHO);
      expect(r.code, r.stderr).toBe(0);
      const text = readFileSync(cfg, 'utf8');
      expect(text).toContain(
        `"checkpoints": [\n    { "name": "step-100", "step": 100, "model": "arena-echo", "answers": "${ECHO}" }\n  ]`,
      );
      expect(JSON.parse(text).judges).toEqual([{ id: 'mock/longer' }]);
      expect(loadCheckpointsConfig(cfg).config.checkpoints).toHaveLength(1);
    }
  });

  it('refuses what the config would refuse, with a clear message, leaving the file as it was', async () => {
    const dir = tmpDir('arena-ckpt-add-');
    const cfg = join(dir, 'checkpoints.json');
    const before = handWritten(
      `  "checkpoints": [\n    { "name": "s1", "step": 100, "model": "arena-echo", "answers": "${ECHO}" }\n  ],`,
    );
    writeFileSync(cfg, before);
    const cases: [string[], string][] = [
      [
        ['--name', 's1', '--step', '200', '--answers', SWIFT],
        `arena: ${cfg}: checkpoint "s1" (step 100) already has the name "s1"; nothing was changed (each checkpoint needs its own name, step and model)`,
      ],
      [['--name', 's2', '--step', '100', '--answers', SWIFT], `already has the step 100`],
      [['--name', 's2', '--step', '200', '--answers', ECHO], `already has the model "arena-echo"`],
      [
        ['--name', 's2', '--step', '200', '--endpoint', 'not a url', '--model', 'm'],
        `arena: checkpoint "s2": field "endpoint.baseURL" (--endpoint): Invalid URL; ${cfg} is unchanged`,
      ],
      [
        ['--name', 's2', '--step', '200', '--answers', join(dir, 'nope.jsonl')],
        `${join(dir, 'nope.jsonl')}: no such file`,
      ],
      [['--name', 's2', '--step', '-3', '--answers', SWIFT], 'arena: --step -3: a whole number from 0 up'],
      [['--name', 's2', '--step', 'two', '--answers', SWIFT], 'arena: --step two: a whole number from 0 up'],
      [
        ['--name', 's2', '--step', '2'],
        'give exactly one of --answers FILE, --endpoint URL (with --model M) or --gguf FILE',
      ],
      [['--name', 's2', '--step', '2', '--answers', SWIFT, '--gguf', SWIFT], 'give exactly one of'],
      [['--name', 's2', '--step', '2', '--endpoint', 'http://x/v1'], '--endpoint needs --model'],
      [['--name', 's2', '--step', '2', '--answers', SWIFT, '--lora', SWIFT], '--lora goes with --gguf'],
      [
        ['--name', 's2', '--step', '2', '--answers', SWIFT, '--model', 'other'],
        '--model goes with --endpoint',
      ],
    ];
    for (const [args, message] of cases) {
      const r = await add(cfg, ...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.split('\n')[0]).toContain(message);
      expect(readFileSync(cfg, 'utf8')).toBe(before);
    }
    expect(readdirSync(dir)).toEqual(['checkpoints.json']);
    // a config that does not load is said as loading says it, and left alone
    const broken = before.replace('"db":   "ckpt.db"', '"db": 3');
    writeFileSync(cfg, broken);
    const r = await add(cfg, '--name', 's2', '--step', '200', '--answers', SWIFT);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^arena: ${cfg}:3: field "db": `));
    expect(readFileSync(cfg, 'utf8')).toBe(broken);
  });
});

describe('the checkpoints config', () => {
  it('refuses two checkpoints with one name, step or model, naming the line', () => {
    const dir = tmpDir('arena-ckpt-cfg-');
    const cfg = join(dir, 'c.json');
    writeFileSync(
      cfg,
      handWritten(
        `  "checkpoints": [\n    { "name": "a", "step": 1, "answers": "${ECHO}", "model": "arena-echo" },\n    { "name": "b", "step": 1, "answers": "${SWIFT}", "model": "arena-swift" }\n  ],`,
      ),
    );
    expect(() => loadCheckpointsConfig(cfg)).toThrow(
      `${cfg}:11: checkpoints[1] has the step 1 of checkpoints[0]; each checkpoint needs its own name, step and model`,
    );
  });

  it('takes the files in watch.dir matching the pattern as checkpoints, the step from its group', () => {
    const dir = tmpDir('arena-ckpt-cfg-');
    const cfg = join(dir, 'c.json');
    const watch = (w: object) => writeFileSync(cfg, handWritten(`  "watch": ${JSON.stringify(w)},`));
    watch({ dir: 'incoming', pattern: '^step-(\\d+)\\.jsonl$' });
    expect(loadCheckpointsConfig(cfg).config.checkpoints).toEqual([]); // no directory yet: none
    mkdirSync(join(dir, 'incoming'));
    for (const f of ['step-2000.jsonl', 'step-500.jsonl', 'step-900.jsonl.tmp', 'notes.txt'])
      copyFileSync(ECHO, join(dir, 'incoming', f));
    expect(loadCheckpointsConfig(cfg).config.checkpoints).toEqual([
      { name: 'step-500', step: 500, model: 'step-500', answers: join(dir, 'incoming', 'step-500.jsonl') },
      {
        name: 'step-2000',
        step: 2000,
        model: 'step-2000',
        answers: join(dir, 'incoming', 'step-2000.jsonl'),
      },
    ]);
    watch({ dir: 'incoming', pattern: '^step-(\\d+)\\.jsonl$', gguf: 'base.gguf' });
    expect(loadCheckpointsConfig(cfg).config.checkpoints[0]).toEqual({
      name: 'step-500',
      step: 500,
      gguf: join(dir, 'base.gguf'),
      lora: join(dir, 'incoming', 'step-500.jsonl'),
    });
    watch({ dir: 'incoming', pattern: '^step-\\d+\\.jsonl$' });
    expect(() => loadCheckpointsConfig(cfg)).toThrow(
      /field "watch.pattern": a regular expression with a group/,
    );
    watch({ dir: 'incoming', pattern: '^(step)-\\d+\\.jsonl$' });
    expect(() => loadCheckpointsConfig(cfg)).toThrow(
      `${cfg}: field "watch.pattern": ${join(dir, 'incoming', 'step-2000.jsonl')} matches, but its step "step" is not a whole number`,
    );
  });
});
