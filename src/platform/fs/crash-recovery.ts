import { RecoveryLog, type RolledBackChange } from "./recovery-log.ts"
import { sweepDeadTemps, trackTempFiles } from "./temp-files.ts"

/** What start-up found of writes that a crash (`kill -9`, power cut) cut short. */
export interface CrashRecovery {
  /** Multi-file changes that were interrupted and have been rolled back. */
  readonly rolledBack: readonly RolledBackChange[]
  /** Temp files of killed writers, removed. */
  readonly removedTemps: readonly string[]
  /** Why recovery could not run, when it could not (start-up goes on: nothing was changed then). */
  readonly error?: string
}

/**
 * Runs once when toolbelt starts on a project.
 * 1. Turn on the in-flight list of this process's temp files (so a crash of this process is cleaned
 *    up by the next start).
 * 2. Remove the temp files that writers now gone listed and left (`sweepDeadTemps`). First: a writer
 *    killed mid-write left its temp file in a directory its change created, and that directory can
 *    only be removed by the rollback once it is empty (done together, a rollback under load found the
 *    temp file still there and left the directory behind).
 * 3. Roll back the multi-file changes on this project whose writer is gone (`RecoveryLog.recover`).
 * Returns the log new changes record into, and the report.
 */
export async function recoverCrashedWrites(options: {
  readonly dataDir: string
  readonly project: string
}): Promise<{ log: RecoveryLog; report: CrashRecovery }> {
  trackTempFiles(options.dataDir)
  const log = new RecoveryLog(options)
  try {
    const removedTemps = await sweepDeadTemps(options.dataDir)
    const rolledBack = await log.recover()
    return { log, report: { rolledBack, removedTemps } }
  } catch (error) {
    const reason = `crash recovery in ${options.dataDir} failed: ${(error as Error).message}`
    return { log, report: { rolledBack: [], removedTemps: [], error: reason } }
  }
}
