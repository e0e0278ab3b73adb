// The annotator's side of /annotate in real Chromium, shared by the Node server's test (annotate-browser.test.ts)
// and the Worker's (worker.test.ts): open the invite link, log in, vote on matches with the keyboard only.
import type { Browser } from 'playwright-core';

export interface Voted {
  /** the keys pressed, one per vote */
  keys: string[];
  /** the progress line after the last vote */
  progress: string;
  /** Content-Security-Policy complaints and page errors seen on the way */
  problems: string[];
}

const KEYS = ['1', '2', '3', '4'];

/** Log in with `invite` (the whole link) and cast `n` votes by pressing 1 to 4 in turn. */
export async function voteWithKeyboard(browser: Browser, invite: string, n: number): Promise<Voted> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on('console', (m) => /Content.Security.Policy|Refused/i.test(m.text()) && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await page.goto(invite);
    await Promise.all([
      page.waitForURL(/\/annotate$/),
      page.getByRole('button', { name: 'Log in and start' }).click(),
    ]);
    const keys: string[] = [];
    for (let i = 0; i < n; i++) {
      const before = await page.locator('input[name=match]').getAttribute('value');
      const key = KEYS[i % KEYS.length]!;
      await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/annotate') && r.request().method() === 'GET'),
        page.keyboard.press(key),
      ]);
      // the next key only once the next page is whole: a response does not mean its document is committed, and a
      // document shows its form before its deferred script (the keys' handler) has run, so a key pressed then is lost
      await page
        .waitForFunction(
          (b) =>
            document.readyState === 'complete' &&
            document.querySelector('input[name=match]')?.getAttribute('value') !== b,
          before,
          { timeout: 15_000 },
        )
        .catch((e: unknown) => {
          throw new Error(`vote ${i + 1}: the page still shows match ${before}`, { cause: e });
        });
      keys.push(key);
    }
    return { keys, progress: (await page.locator('#progress').textContent()) ?? '', problems };
  } finally {
    await ctx.close();
  }
}
