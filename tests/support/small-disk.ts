// A real small filesystem for disk-full tests: a tmpfs mounted under a scratch folder (it needs root; where it
// cannot be mounted, `mounted` is false and the tests skip), filled to leave a chosen number of bytes free.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SmallDisk {
  /** whether the filesystem is mounted (false: not root, or no mount here) */
  mounted: boolean;
  /** its mount point */
  dir: string;
  /** leave about `keep` bytes free (a filler file); returns the filler's path */
  fill(keep: number): string;
  /** remove the filler */
  unfill(): void;
  /** unmount (lazily: a process still holding a file there does not block it) */
  unmount(): void;
}

export function smallDisk(parent: string, size = '6m'): SmallDisk {
  const dir = join(parent, 'small');
  const filler = join(dir, 'filler');
  let mounted = false;
  if (process.getuid?.() === 0)
    try {
      mkdirSync(dir, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
      mounted = true;
    } catch {
      mounted = false;
    }
  return {
    mounted,
    dir,
    fill(keep) {
      const st = statfsSync(dir);
      writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - keep)));
      return filler;
    },
    unfill: () => rmSync(filler, { force: true }),
    unmount: () => {
      if (mounted) execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    },
  };
}
