/**
 * A version started on a database a newer version migrated refuses, naming what it does not
 * know, and changes nothing: going back a version could count balances twice (the backfill's
 * token parts, migration 028, are unknown to the versions before it). Both engines.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, NewerDatabaseError } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { availableEngines, freshDatabase } from '../support/databases.js';

describe.each(await availableEngines())('a database migrated by a newer version, on %s', (engine) => {
  const opened: Array<{ drop: () => Promise<void> }> = [];
  afterAll(async () => {
    for (const d of opened) await d.drop();
  });

  it('is refused by name, with nothing applied, and this version still migrates its own', async () => {
    const database = await freshDatabase(engine);
    opened.push(database);
    const { db } = database;
    // this version's own database: nothing left to apply, nothing refused
    expect(await migrate(db)).toEqual([]);
    await db.query("INSERT INTO schema_migrations (id) VALUES ('999_from_the_future')");
    const refused = await migrate(db).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NewerDatabaseError);
    expect((refused as NewerDatabaseError).unknown).toEqual(['999_from_the_future']);
    expect(String((refused as Error).message)).toContain('999_from_the_future');
    const ids = await db.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
    expect(ids.map((r) => r.id).sort()).toEqual([...migrations.map((m) => m.id), '999_from_the_future'].sort());
    // an upgrade test's prefix of the list is not this version's whole list: not refused
    expect(await migrate(db, migrations.slice(0, 3))).toEqual([]);
  });
});
