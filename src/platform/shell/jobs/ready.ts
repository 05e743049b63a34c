import { connect } from "node:net"
import type { RunningCommand } from "../run/run.ts"

/** What "ready" means for a background job; every condition given must hold. */
export interface Readiness {
  /** A TCP port on the loopback interface (127.0.0.1 or ::1) that accepts connections. */
  readonly port?: number
  /** A regular expression that a line of the job's output matches. */
  readonly pattern?: RegExp
  readonly timeoutMs: number
}

export type ReadyOutcome =
  | { readonly ready: true; readonly detail: string }
  | { readonly ready: false; readonly why: "exited" | "timeout" | "aborted" }

const PORT_POLL_MS = 100
/** Output is matched across chunk boundaries within a window this large. */
const WINDOW_CHARS = 16 * 1024

/**
 * Waits until the job is ready, has exited, the timeout passes, or `signal` aborts, whichever is first.
 * A port is polled with connection attempts; a pattern is checked against the output so far and then
 * against every new piece, so a line split across two reads still matches.
 */
export function waitForReady(
  command: RunningCommand,
  readiness: Readiness,
  signal?: AbortSignal,
): Promise<ReadyOutcome> {
  return new Promise((resolve) => {
    const cleanups: (() => void)[] = []
    let settled = false
    const finish = (outcome: ReadyOutcome) => {
      if (settled) return
      settled = true
      for (const cleanup of cleanups) cleanup()
      resolve(outcome)
    }
    const details: string[] = []
    let needed = (readiness.port !== undefined ? 1 : 0) + (readiness.pattern ? 1 : 0)
    const met = (detail: string) => {
      details.push(detail)
      if (--needed === 0) finish({ ready: true, detail: details.join(" and ") })
    }

    if (readiness.pattern) {
      const pattern = readiness.pattern
      let window = ""
      let matched = false
      const test = (text: string) => {
        if (matched) return
        window = (window + text).slice(-WINDOW_CHARS)
        if (pattern.test(window)) {
          matched = true
          met(`its output matched /${pattern.source}/`)
        }
      }
      cleanups.push(command.capture.listen(test))
      test(command.capture.tail(WINDOW_CHARS))
    }

    if (readiness.port !== undefined) {
      const port = readiness.port
      let timer: NodeJS.Timeout | undefined
      const poll = () => {
        void portOpen(port).then((open) => {
          if (settled) return
          if (open) met(`port ${port} accepts connections`)
          else timer = setTimeout(poll, PORT_POLL_MS)
        })
      }
      cleanups.push(() => clearTimeout(timer))
      poll()
    }

    const timer = setTimeout(() => finish({ ready: false, why: "timeout" }), readiness.timeoutMs)
    cleanups.push(() => clearTimeout(timer))
    void command.done.then(
      () => finish({ ready: false, why: "exited" }),
      () => finish({ ready: false, why: "exited" }),
    )
    if (signal) {
      const onAbort = () => finish({ ready: false, why: "aborted" })
      if (signal.aborted) onAbort()
      signal.addEventListener("abort", onAbort, { once: true })
      cleanups.push(() => signal.removeEventListener("abort", onAbort))
    }
  })
}

/** Whether something accepts TCP connections on the port, over IPv4 or IPv6 loopback. */
export async function portOpen(port: number): Promise<boolean> {
  const results = await Promise.all(["127.0.0.1", "::1"].map((host) => connects(host, port)))
  return results.some(Boolean)
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })
}
