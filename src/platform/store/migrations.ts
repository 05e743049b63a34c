import * as pg from "./schema-postgres.ts"
import * as lite from "./schema-sqlite.ts"
import type { Database } from "./sqlite.ts"

/**
 * One schema change. `version` counts up from 1 with no gaps; the database holds the last applied
 * (`PRAGMA user_version` in SQLite, the `toolbelt_schema` table in PostgreSQL).
 */
export interface Migration {
  readonly version: number
  readonly name: string
  /**
   * SQL to run, or a function for changes that need code (backfills). Runs inside the migration's
   * transaction. On PostgreSQL too, unless `postgres` is given.
   */
  readonly up: string | ((db: Database) => void)
  /** The same change in PostgreSQL's dialect, where it differs. */
  readonly postgres?: string | ((db: Database) => void)
}

/** The database was written by a newer toolbelt: refuse it rather than misread or damage it. */
export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError"
  readonly path: string
  readonly found: number
  readonly known: number
  constructor(
    path: string,
    found: number,
    known: number,
    elsewhere = "point TOOLBELT_DATA_DIR at another directory",
  ) {
    super(
      `The store ${path} has schema version ${found}, but this toolbelt knows versions up to ${known}. ` +
        `It was written by a newer toolbelt: upgrade toolbelt, or ${elsewhere}.`,
    )
    this.path = path
    this.found = found
    this.known = known
  }
}

/** toolbelt's schema, oldest first, in both dialects. Append only: never edit a migration that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "initial schema", up: lite.V1, postgres: pg.V1 },
  { version: 2, name: "mcp tool pins", up: lite.V2, postgres: pg.V2 },
  { version: 3, name: "part output column", up: lite.V3, postgres: pg.V3 },
  { version: 4, name: "owner start time, interrupted calls to report", up: lite.V4, postgres: pg.V4 },
  { version: 5, name: "what each session has been shown", up: lite.V5, postgres: pg.V5 },
  { version: 6, name: "the agent each session runs as", up: lite.V6, postgres: pg.V6 },
  { version: 7, name: "a subagent session's permission rules", up: lite.V7, postgres: pg.V7 },
  { version: 8, name: "parts in an explicit order", up: lite.V8, postgres: pg.V8 },
  { version: 9, name: "session host, the fleet's event log", up: lite.V9, postgres: pg.V9 },
  {
    version: 10,
    name: "owner leases, replies to asks and questions across instances",
    up: lite.V10,
    postgres: pg.V10,
  },
  { version: 11, name: "full outputs shared by the fleet", up: lite.V11, postgres: pg.V11 },
  { version: 12, name: "outputs stored once by content", up: lite.V12, postgres: pg.V12 },
  // PostgreSQL numbers the journal with an identity column, which has no such counter table.
  { version: 13, name: "journal numbered by rowid", up: lite.V13, postgres: () => {} },
]

/** Where PostgreSQL keeps the schema version: one row. */
const VERSION_TABLE = "toolbelt_schema"

/**
 * The key of the transaction-scoped advisory lock PostgreSQL instances take while migrating, so that
 * of several starting at once one migrates and the others wait, then find the work done.
 */
const MIGRATION_LOCK = 7_346_011_028

/** The schema version recorded in the database (0 for a new one). */
export function schemaVersion(db: Database): number {
  if (db.engine === "sqlite") {
    return db.prepare("PRAGMA user_version").get<{ user_version: number }>()?.user_version ?? 0
  }
  const table = db.prepare("SELECT to_regclass(?) AS name").get<{ name: string | null }>(VERSION_TABLE)
  if (!table?.name) return 0
  return db.prepare(`SELECT version FROM ${VERSION_TABLE}`).get<{ version: number }>()?.version ?? 0
}

function setVersion(db: Database, version: number): void {
  if (db.engine === "sqlite") db.exec(`PRAGMA user_version = ${version}`)
  else db.prepare(`UPDATE ${VERSION_TABLE} SET version = ?`).run(version)
}

/** PostgreSQL: waits for any other instance migrating, and makes the version table on first use. */
function lockSchema(db: Database): void {
  if (db.engine === "sqlite") return
  db.exec(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version BIGINT NOT NULL);
     INSERT INTO ${VERSION_TABLE} (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ${VERSION_TABLE})`,
  )
}

function tooNew(db: Database, found: number, known: number): SchemaTooNewError {
  const elsewhere = db.engine === "postgres" ? "point the store at another database" : undefined
  return new SchemaTooNewError(db.path, found, known, elsewhere)
}

/**
 * Brings the database up to the newest schema.
 * 1. Refuses a database newer than the newest migration (`SchemaTooNewError`).
 * 2. Applies each missing migration in order (its PostgreSQL text there), each in its own transaction
 *    together with the version bump, so a crash leaves the schema at a whole version.
 * 3. Re-reads the version inside each transaction: another process opening the same database at the
 *    same moment applies each migration once, and reopening an up-to-date database changes nothing.
 *    SQLite's `BEGIN IMMEDIATE` serialises them; PostgreSQL instances take an advisory lock first.
 */
export function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): { from: number; to: number } {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(`Migration "${migration.name}" has version ${migration.version}; expected ${index + 1}`)
    }
  })
  const known = migrations.length
  const from = schemaVersion(db)
  if (from > known) throw tooNew(db, from, known)
  for (const migration of migrations.slice(from)) {
    db.transaction(() => {
      lockSchema(db)
      const current = schemaVersion(db)
      if (current > known) throw tooNew(db, current, known)
      if (current >= migration.version) return
      const up = db.engine === "postgres" ? (migration.postgres ?? migration.up) : migration.up
      if (typeof up === "string") db.exec(up)
      else up(db)
      setVersion(db, migration.version)
    })
  }
  return { from, to: schemaVersion(db) }
}
