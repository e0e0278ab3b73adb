import { fnv1a } from './result-cache.ts';
import { assets as rawAssets, views } from './views.gen.ts';

type ViewFn = (it: object, escapeFn: undefined, include: (name: string, data?: object) => string) => string;

/** Render a compiled view (views/*.ejs); `include(name, data)` renders another view with the same registry. */
export function render(name: string, data: object): string {
  const fn = Object.hasOwn(views, name) ? (views as unknown as Record<string, ViewFn>)[name] : undefined;
  if (!fn) throw new Error(`[web] no view named "${name}" (views/${name}.ejs)`);
  return fn(data, undefined, (child, d) => render(child, { ...data, ...d }));
}

const table = new Map<string, { body: string; kind: 'css' | 'js'; hash: string }>(
  Object.entries(rawAssets as Record<string, string>).map(([name, body]) => [
    name,
    { body, kind: name.endsWith('.css') ? 'css' : 'js', hash: fnv1a(body).slice(0, 12) },
  ]),
);

/** The site's stylesheet and script (views/*.css, views/*.js), served from /static/ under a content-hashed URL. */
export const assets = {
  get: (name: string) => table.get(name),
  path(name: string): string {
    const a = table.get(name);
    if (!a) throw new Error(`[web] no asset named "${name}" (views/${name})`);
    return `/static/${name}?v=${a.hash}`;
  },
};
