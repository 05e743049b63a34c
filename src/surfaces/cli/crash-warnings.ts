import type { Toolbelt } from "../../compose/toolbelt.ts"
import { describeRolledBack } from "../../platform/fs/recovery-log.ts"
import type { IO } from "./io.ts"

/** Tells the person at the terminal what start-up rolled back after a crash (stderr, one line each). */
export function warnCrashRecovery(toolbelt: Pick<Toolbelt, "crashRecovery">, io: IO): void {
  const { rolledBack, error } = toolbelt.crashRecovery
  for (const change of rolledBack) io.stderr.write(`warning: ${describeRolledBack(change)}\n`)
  if (error) io.stderr.write(`warning: ${error}\n`)
}
