export { SqliteApprovalStore } from "./approvals.ts"
export {
  ABORTED,
  CallSettledError,
  interrupt,
  isFinal,
  Journal,
  type JournalEntry,
  type JournalKind,
  PROCESS_GONE,
  type Recovery,
} from "./journal.ts"
export { type McpPin, McpPins } from "./mcp-pins.ts"
export { type MessageRecord, Messages } from "./messages.ts"
export { MIGRATIONS, type Migration, migrate, SchemaTooNewError, schemaVersion } from "./migrations.ts"
export { Parts } from "./parts.ts"
export {
  isPostgres,
  type Listening,
  openPostgres,
  type PostgresDatabase,
  PostgresError,
  type PostgresOptions,
} from "./postgres/database.ts"
export { isStoreUrl, redactStoreUrl } from "./postgres/url.ts"
export { type FileStamp, type LedgerEntry, ReadLedger } from "./read-ledger.ts"
export { SessionAgents } from "./session-agents.ts"
export { SessionSeen } from "./session-seen.ts"
export { type NewSession, type SessionInfo, type SessionRule, Sessions } from "./sessions.ts"
export {
  type Database,
  driver,
  type OpenOptions,
  openDatabase,
  type Row,
  type RunResult,
  type SqlValue,
  type Statement,
  type Synchronous,
} from "./sqlite.ts"
export {
  openStore,
  STORE_FILE,
  type Store,
  type StoreLocation,
  type StoreOptions,
  storePath,
} from "./store.ts"
export { Todos } from "./todos.ts"
