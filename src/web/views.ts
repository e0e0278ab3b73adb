import { views } from './views.gen.ts';

type ViewFn = (it: object, escapeFn: undefined, include: (name: string, data?: object) => string) => string;

/** Render a compiled view (views/*.ejs); `include(name, data)` renders another view with the same registry. */
export function render(name: string, data: object): string {
  const fn = (views as unknown as Record<string, ViewFn>)[name];
  if (!fn) throw new Error(`[web] no view named "${name}" (views/${name}.ejs)`);
  return fn(data, undefined, (child, d) => render(child, { ...data, ...d }));
}
