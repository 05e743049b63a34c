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

/**
 * How the person stops a command that runs calls (`call`, `run`): SIGINT or SIGTERM, or Ctrl+C at one
 * of its prompts, where the terminal is read in raw mode and Ctrl+C is a key, not a signal. Both end
 * the same way: `signal`, which the command's calls run under, aborts, so each call in flight is
 * recorded as interrupted (a pending ask or question is withdrawn) and the command exits 130.
 */
export class CommandStop {
  readonly #controller = new AbortController()
  #prompt: string | undefined

  /** Aborted once the command is stopped. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** The prompt Ctrl+C was pressed at ("the permission prompt"), when that is what stopped the command. */
  get prompt(): string | undefined {
    return this.#prompt
  }

  /** Ctrl+C at `prompt`. */
  interrupt(prompt: string): void {
    if (this.#controller.signal.aborted) return
    this.#prompt = prompt
    this.#controller.abort()
  }

  /** Stops the command on the first SIGINT or SIGTERM; returns how to stop listening. */
  listen(): () => void {
    return onStopSignal(() => this.#controller.abort())
  }

  /** What the command says when it ends stopped (after `toolbelt <command>: `). */
  message(what: string): string {
    return `interrupted${this.#prompt ? ` at ${this.#prompt} (Ctrl+C)` : ""}; ${what}`
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
