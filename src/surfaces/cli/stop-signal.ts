/**
 * Calls `stop` on the first SIGINT or SIGTERM, so a command can end its work (abort its calls, close
 * its server) and still close the store; returns how to stop listening.
 */
export function onStopSignal(stop: () => void): () => void {
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
  return () => {
    process.off("SIGINT", stop)
    process.off("SIGTERM", stop)
  }
}
