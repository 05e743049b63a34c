// Step 2 of building a toolbelt: the store, the output store, and start-up recovery.

import { type CrashRecovery, recoverCrashedWrites } from "../platform/fs/crash-recovery.ts"
import { outputDir } from "../platform/fs/data-dir.ts"
import type { RecoveryLog } from "../platform/fs/recovery-log.ts"
import type { Recovery } from "../platform/store/journal.ts"
import { StoredOutputs } from "../platform/store/outputs.ts"
import { openStore, type Store } from "../platform/store/store.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import { OutputStore } from "../runtime/output/store.ts"

export interface Records {
  readonly store: Store
  /** Whether this toolbelt opened the store, and so closes it. */
  readonly ownsStore: boolean
  readonly output: OutputStore
  /** What start-up recovery closed as interrupted, and the asks a crashed process left waiting. */
  readonly recovered: Recovery
  readonly crashReport: CrashRecovery
  /** Where multi-file changes log themselves, so that a crash midway can be rolled back. */
  readonly crashLog: RecoveryLog
  /**
   * Publishes each rollback as `file.recovered` on the turn after this one. The composition root
   * calls it last, when nothing is awaited any more, so a subscriber attached right after
   * `createToolbelt` returns sees every event whatever I/O start-up did after the records opened.
   */
  readonly announceRecovered: () => void
}

/**
 * Opens the records of a project and recovers from a crash.
 * 1. The store: the one given, a throwaway one (`"memory"`), a PostgreSQL database (a `postgres://`
 *    URL; the data dir still holds full outputs and crash records), or the data dir's file.
 * 2. The journal closes the calls a crashed process left open.
 * 3. Multi-file changes a crash cut short are rolled back and temp files of killed writes removed;
 *    each rollback is published as `file.recovered` when start-up is over (`announceRecovered`).
 * 4. The output store, where full outputs of bounded calls go (on PostgreSQL copied into the store too,
 *    for the fleet).
 */
export async function openRecords({
  store: given,
  dataDir,
  directory,
  bus,
}: {
  store: Store | "memory" | string | undefined
  dataDir: string
  directory: string
  bus: Bus
}): Promise<Records> {
  const store =
    given === "memory"
      ? openStore({ path: ":memory:" })
      : typeof given === "string"
        ? openStore({ url: given })
        : (given ?? openStore({ dataDir }))
  const recovered = store.journal.recover()
  const crash = await recoverCrashedWrites({ dataDir, project: directory })
  return {
    store,
    ownsStore: given === undefined || typeof given === "string",
    output: new OutputStore({
      dir: outputDir(dataDir),
      ...(store.db.engine === "postgres" ? { shared: new StoredOutputs(store.db) } : {}),
    }),
    recovered,
    crashReport: crash.report,
    crashLog: crash.log,
    announceRecovered: () =>
      setImmediate(() =>
        crash.report.rolledBack.map((change) => bus.publish("file.recovered", { directory, change })),
      ),
  }
}
