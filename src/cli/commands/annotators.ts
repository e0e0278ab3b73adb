// `arena annotators add|list|revoke`: who may vote on /annotate (an invite's token is printed once; only its hash kept).
import { defineCommand } from 'citty';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ANNOTATOR_NAME, inviteHash, inviteLink } from '../../core/annotate.ts';
import { ArenaError } from '../../core/types.ts';
import { table, UsageError } from '../format.ts';
import { dbArg, jsonArg, print, printJson, withStore } from '../shared.ts';

const Name = z
  .string()
  .regex(
    ANNOTATOR_NAME,
    'a name is 1 to 64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit',
  );
const SiteUrl = z
  .string()
  .regex(/^https?:\/\/[^/\s]+\/?$/, 'expected an address like https://arena.example.org');

/** A command-line value checked by a zod schema: a usage error naming the option and the rule. */
function valid<T>(schema: z.ZodType<T>, value: unknown, option: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new UsageError(`${option} ${JSON.stringify(value)}: ${r.error.issues[0]?.message ?? 'invalid'}`);
}

const nameArg = {
  name: { type: 'positional', required: true, description: "the annotator's name (never shown to visitors)" },
} as const;

const when = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));

const add = defineCommand({
  meta: {
    name: 'add',
    description:
      'invite an annotator, or invite again one whose invite was used or revoked (the same voter): prints a one-time login link (/annotate/login?token=...)',
  },
  args: {
    ...dbArg,
    ...nameArg,
    'site-url': {
      type: 'string',
      description: "the site's public address, to print the whole link (default: the path only)",
      valueHint: 'URL',
    },
  },
  async run({ args }) {
    const name = valid(Name, args.name, 'NAME');
    const site = args['site-url'] === undefined ? '' : valid(SiteUrl, args['site-url'], '--site-url');
    const token = randomBytes(32).toString('base64url');
    // a name whose invite is still unused is refused by the store, in one line
    const a = await withStore(args.db, { source: `annotators add ${name}` }, (store) =>
      store.annotators.add(name, inviteHash(token), Date.now()),
    );
    print(
      `${a.again ? `invited ${name} again, the same voter annotator_${a.id} (a session still open has ended)` : `invited ${name}`}; send this link once (it works once, and the database keeps only its hash):`,
    );
    print(inviteLink(site, token));
  },
});

const list = defineCommand({
  meta: {
    name: 'list',
    description: 'the annotators: invited, logged in, revoked, and how many votes each cast',
  },
  args: { ...dbArg, ...jsonArg },
  async run({ args }) {
    const rows = await withStore(args.db, { readonly: true }, async (store) => {
      const votes = new Map<string, number>();
      for (const v of await store.votes.list('annotators')) votes.set(v.voter, (votes.get(v.voter) ?? 0) + 1);
      return (await store.annotators.list()).map((a) => ({
        name: a.name,
        voter: `annotator_${a.id}`,
        invited: when(a.createdAt),
        loggedIn: when(a.usedAt),
        revoked: when(a.revokedAt),
        votes: votes.get(`annotator_${a.id}`) ?? 0,
      }));
    });
    if (args.json) return printJson(rows);
    print(rows.length ? table(rows) : 'no annotators (invite one with `arena annotators add NAME`)');
  },
});

const revoke = defineCommand({
  meta: {
    name: 'revoke',
    description: 'revoke an annotator: the invite and every session stop at once (votes stay)',
  },
  args: { ...dbArg, ...nameArg },
  async run({ args }) {
    const name = valid(Name, args.name, 'NAME');
    await withStore(args.db, { source: `annotators revoke ${name}` }, async (store) => {
      const known = (await store.annotators.list()).find((a) => a.name === name);
      if (!known) throw new UsageError(`no annotator named "${name}" (see \`arena annotators list\`)`);
      if (!(await store.annotators.revoke(name, Date.now())))
        throw new ArenaError(`annotator "${name}" was revoked already`);
    });
    print(`revoked ${name}: the invite and every session stop now; the votes cast stay`);
  },
});

export const annotatorsCommand = defineCommand({
  meta: {
    name: 'annotators',
    description: 'who may vote on /annotate (arena serve --annotate): add, list, revoke',
  },
  subCommands: { add, list, revoke },
});
