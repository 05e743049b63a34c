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

/** A server a command runs until it is stopped. */
export interface RunningServer {
  /** Resolves when the server ended by itself (a stdio client closed the connection). */
  readonly closed?: Promise<void>
  close(): Promise<void>
}

/**
 * Runs a server until the first SIGINT or SIGTERM (or until it ends by itself), then closes it.
 * 1. Listen for the signals first: one that comes while `start` runs closes the server once it is up.
 * 2. Start it (`start` also says where it is).
 * 3. Wait for the signal or its own end; close it; stop listening (also when `start` throws).
 */
export async function serveUntilStopped(start: () => Promise<RunningServer>): Promise<void> {
  const stopped = Promise.withResolvers<void>()
  const stopListening = onStopSignal(() => stopped.resolve())
  try {
    const server = await start()
    await Promise.race([stopped.promise, ...(server.closed ? [server.closed] : [])])
    await server.close()
  } finally {
    stopListening()
  }
}
