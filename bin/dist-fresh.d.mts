/** bin/dist-fresh.mjs: whether dist/arena.mjs is newer than src/ and the last npm install. */
export function distFresh(root: string): boolean;
