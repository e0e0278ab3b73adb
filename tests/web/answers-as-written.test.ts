// The match browser's default view shows all 480 MT-Bench answers as written (text read by stripping tags, not by
// our renderer); the Markdown toggle keeps math's characters and code as code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { tmpDir } from '../support/cli.ts';
import { MTBENCH_DIR, MTBENCH_MODELS, noMtbench, skipWhy } from '../support/materials.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';

const SKIP = skipWhy('answers-as-written', noMtbench('every answer of the release'));

/** The release's answers: model -> question -> turns. */
function releaseAnswers(dir: string): Map<string, Map<number, string[]>> {
  const out = new Map<string, Map<number, string[]>>();
  for (const model of MTBENCH_MODELS) {
    const byQ = new Map<number, string[]>();
    for (const line of readFileSync(join(dir, 'model_answer', `${model}.jsonl`), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const a = JSON.parse(line) as { question_id: number; choices: { turns: string[] }[] };
      byQ.set(a.question_id, a.choices[0]!.turns);
    }
    out.set(model, byQ);
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** What a reader sees of an HTML fragment: tags dropped, entities decoded (our own small reader). */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) =>
      e[0] === '#'
        ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
        : (ENTITIES[e.toLowerCase()] ?? whole),
    );
}

/** Each answer article of a match page, in turn order: its model (the heading) and the HTML after the heading. */
function answerArticles(page: string): { model: string; html: string }[] {
  return [...page.matchAll(/<article class="answer"><h3>([^<]*)<\/h3>([\s\S]*?)<\/article>/g)].map((m) => ({
    model: visibleText(m[1]!),
    html: m[2]!,
  }));
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

describe.skipIf(!!SKIP)('answers as written on the match browser', () => {
  const db = join(tmpDir('arena-as-written-'), 'release.db');
  let store: SqliteStore;
  let app: ReturnType<typeof createApp>;
  let answers: Map<string, Map<number, string[]>>;
  const pairs = [0, 2, 4].map((k) => [MTBENCH_MODELS[k]!, MTBENCH_MODELS[k + 1]!] as const);
  const url = (q: number, a: string, b: string, view = '') =>
    `/matches?question=${q}&a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}${view}`;

  beforeAll(async () => {
    await mtbenchReleaseDb(db, MTBENCH_DIR);
    store = openSqliteStore(db);
    app = createApp({ store });
    answers = releaseAnswers(MTBENCH_DIR!);
  });
  afterAll(() => store?.close());

  /** Every question's pages for the three pairs that cover the six models, in the given view. */
  async function everyAnswer(view: string, check: (source: string, shown: string, where: string) => void) {
    let seen = 0;
    const questions = [...answers.get(MTBENCH_MODELS[0]!)!.keys()];
    for (const q of questions)
      for (const [a, b] of pairs) {
        const r = await app.request(url(q, a, b, view));
        expect(r.status).toBe(200);
        const arts = answerArticles(await r.text());
        expect(arts).toHaveLength(4); // two models, two turns
        arts.forEach(({ model, html }, k) => {
          const turn = Math.floor(k / 2);
          check(answers.get(model)!.get(q)![turn]!, html, `question ${q}, ${model}, turn ${turn + 1}`);
        });
        seen += 2;
      }
    return seen;
  }

  it('the default view shows all 480 answers character for character (whitespace aside)', async () => {
    let exact = 0;
    let empty = 0;
    const seen = await everyAnswer('', (source, html, where) => {
      const shown = visibleText(html);
      // an empty answer is said to be empty (llama-13b left a few)
      if (!source.trim()) return (void expect(html, where).toContain('(empty answer)'), empty++);
      expect(squash(shown), where).toBe(squash(source));
      if (shown === source) exact++;
    });
    expect(seen).toBe(480);
    // the text node is the answer itself: not even whitespace changes
    expect(exact + empty).toBe(960);
    console.log(`[answers-as-written] default view: ${exact} turns exact, ${empty} empty`);
  });

  it("question 119's gpt-3.5-turbo answer keeps its arithmetic: 5*25+3*37.5, not emphasis", async () => {
    const page = await (await app.request(url(119, 'gpt-3.5-turbo', 'gpt-4'))).text();
    const turn2 = answerArticles(page).find((a, k) => k >= 2 && a.model === 'gpt-3.5-turbo')!;
    expect(turn2.html).not.toContain('<em>');
    expect(visibleText(turn2.html)).toContain('5*25+3*37.5');
  });

  it('the Markdown view keeps every arithmetic * and TeX span as written, and code as code', async () => {
    const math = /[\p{L}\p{N})\]][*_]+[\p{L}\p{N}(]|\$[^$\n]+\$|\\\([\s\S]*?\\\)/gu;
    let spans = 0;
    let codeBlocks = 0;
    const seen = await everyAnswer('&view=markdown', (source, html, where) => {
      const shown = visibleText(html);
      for (const m of source.matchAll(math)) {
        // inside code the same characters must be there too (code keeps them)
        expect(shown, `${where}: ${m[0]}`).toContain(m[0]);
        spans++;
      }
      for (const m of source.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
        const body = m[1]!.trim().split('\n')[0]!;
        if (!body.trim()) continue;
        const codes = [...html.matchAll(/<pre><code[^>]*>([\s\S]*?)<\/code><\/pre>/g)].map((c) =>
          visibleText(c[1]!),
        );
        expect(
          codes.some((c) => c.includes(body)),
          `${where}: code ${body}`,
        ).toBe(true);
        codeBlocks++;
      }
    });
    expect(seen).toBe(480);
    expect(spans).toBeGreaterThan(100);
    expect(codeBlocks).toBeGreaterThan(50);
    console.log(`[answers-as-written] Markdown view: ${spans} math spans and ${codeBlocks} code blocks kept`);
  });

  it('the toggle links both ways and the form keeps the choice', async () => {
    const plain = await (await app.request(url(119, 'gpt-3.5-turbo', 'gpt-4'))).text();
    expect(plain).toContain('view=markdown">Render as Markdown</a>');
    const md = await (await app.request(url(119, 'gpt-3.5-turbo', 'gpt-4', '&view=markdown'))).text();
    expect(md).toContain('>Show as written</a>');
    expect(md).toContain('<input type="hidden" name="view" value="markdown">');
    expect((await app.request(url(119, 'gpt-3.5-turbo', 'gpt-4', '&view=html'))).status).toBe(400);
  });
});
