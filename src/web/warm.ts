// What a server's first visitors would otherwise pay for the code of their page, paid before it listens: every
// kind of page (each page the navigation links to, and one model page) is asked once of a throwaway app over the
// same store that only reads the stored reports (it never computes one: a missing report is its 503 page) and
// whose caches are dropped with it. V8 compiles a function when it is first called; after this the pages' views,
// queries, parameter schemas and compression are compiled, and a visitor's request reads and renders only its own
// data. Nothing of the site's own caches is touched.
import { NAV } from './site.ts';

type Fetch = (r: Request) => Response | Promise<Response>;

/** Ask `path` of `fetch` as a browser would (taking gzip unless `plain`), reading the whole body. */
export async function ask(fetch: Fetch, path: string, plain = false): Promise<string> {
  const r = await fetch(
    new Request(`http://localhost${path}`, plain ? {} : { headers: { 'Accept-Encoding': 'gzip' } }),
  );
  return plain ? r.text() : (await r.arrayBuffer(), '');
}

/** Ask every kind of page of `fetch` (a throwaway app's) once; the first model page `/models` links to as well. */
export async function warmPages(fetch: Fetch): Promise<void> {
  for (const [path] of NAV) {
    if (path !== '/models') {
      await ask(fetch, path);
      continue;
    }
    const model = /href="(\/models\/[^"#]+)"/.exec(await ask(fetch, path, true))?.[1];
    if (model) await ask(fetch, model.replace(/&amp;/g, '&'));
  }
}
