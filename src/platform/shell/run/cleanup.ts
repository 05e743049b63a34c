/** Something that can kill its process tree synchronously. */
export interface Killable {
  stopNow(): void
}

const live = new Set<Killable>()
let installed = false
const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"]

/**
 * Registers a running command so that it does not outlive this process: its tree runs in its own
 * process group and session, so nothing else would stop it. Returns the function that unregisters it.
 */
export function trackLive(command: Killable): () => void {
  install()
  live.add(command)
  return () => live.delete(command)
}

/** SIGKILLs every command still running, synchronously (the process is exiting). */
export function killAllLive(): void {
  for (const command of [...live]) {
    try {
      command.stopNow()
    } catch {
      // Exiting: kill the others whatever happened to this one.
    }
  }
}

/**
 * On exit, kill what is left. A terminating signal normally ends Node without an exit event, so while
 * commands run, a listener for SIGINT/SIGTERM/SIGHUP kills them and, when it is the only listener,
 * re-raises the signal so the process still ends the default way. When the application has a listener
 * of its own, that listener decides what the signal means (and `exit` covers a later exit).
 */
function install(): void {
  if (installed) return
  installed = true
  process.on("exit", killAllLive)
  for (const signal of SIGNALS) {
    const listener = () => {
      if (process.listenerCount(signal) > 1) return
      killAllLive()
      process.removeListener(signal, listener)
      process.kill(process.pid, signal)
    }
    // First in line, so it sees the application's own listeners (even `once` ones) before they run.
    process.prependListener(signal, listener)
  }
}
