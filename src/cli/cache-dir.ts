// Where downloads are kept: $XDG_CACHE_HOME/mt-arena (default ~/.cache/mt-arena), read here so downloaders take a folder.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The folder a pinned download is kept in (`name`: the download's folder, named for its pin). */
export function cacheDir(name: string, env: Record<string, string | undefined> = process.env): string {
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'mt-arena', name);
}
