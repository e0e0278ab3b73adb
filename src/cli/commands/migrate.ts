import { defineCommand } from 'citty';
import { schemaVersion } from '../../storage/schema-version.ts';
import { dbArg, print, withStore } from '../shared.ts';

export const migrateCommand = defineCommand({
  meta: {
    name: 'migrate',
    description:
      "bring a database from an older mt-arena up to this version's schema (every write command does it too); says the schema version before and after",
  },
  args: { ...dbArg },
  async run({ args }) {
    const v = await withStore(args.db, { mustExist: true }, async (store) => schemaVersion(store.sqlite));
    print(`${args.db}: schema version ${v.version} (${v.tag}), this mt-arena's`);
  },
});
