// Where a call stands, told truthfully from its recorded state and metadata: a command that exited 2
// failed even though the tool completed, a timeout and a kill are failures of their own, a call
// waiting for a person is not "running", and an interruption says who stopped it.

/** Who stopped a call (`metadata.stoppedBy`), in words. */
const STOPPED_BY = { page: "stopped from the page", api: "stopped through the API" }

/** Outcomes that are failures, whatever the tool's own status. */
export const FAILED = new Set(["failed", "timeout", "killed", "interrupted", "error"])

/** Outcomes of a call still going: it can be stopped. */
export const OPEN = new Set(["pending", "running", "waiting"])

/**
 * `{ key, label, detail }`: `key` names the state (css class and badge), `label` is its badge text,
 * `detail` a few words more (the exit code, the signal, who stopped it), or "".
 */
export function outcome(part, waiting) {
  const { state } = part
  const metadata = state.metadata ?? {}
  if (state.status === "pending" || state.status === "running") {
    if (waiting) return { key: "waiting", label: "waiting for you", detail: "" }
    return { key: state.status, label: state.status, detail: "" }
  }
  if (state.status === "error") {
    if (metadata.interrupted === true)
      return { key: "interrupted", label: "interrupted", detail: STOPPED_BY[metadata.stoppedBy] ?? "" }
    return { key: "error", label: "error", detail: "" }
  }
  // Completed: the tool ran to its end; what it ran may still have failed.
  if (metadata.timedOut === true) return { key: "timeout", label: "timed out", detail: signalOf(metadata) }
  if (metadata.aborted === true) return { key: "interrupted", label: "interrupted", detail: "" }
  if (metadata.exit === null && typeof metadata.signal === "string")
    return { key: "killed", label: "killed", detail: `by ${metadata.signal}` }
  if (typeof metadata.exit === "number" && metadata.exit !== 0)
    return { key: "failed", label: "failed", detail: `exit ${metadata.exit}` }
  return { key: "completed", label: "completed", detail: "" }
}

function signalOf(metadata) {
  return typeof metadata.signal === "string" ? `killed by ${metadata.signal}` : ""
}

/** "12 s", "3 min 05 s", "1 h 02 min": how long a call has been running. */
export function elapsed(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`
}

/** The id `GET /api/outputs/:id` takes for a bounded result: the last segment of `metadata.outputPath`. */
export function outputID(metadata) {
  if (metadata?.truncated !== true || typeof metadata.outputPath !== "string") return undefined
  return metadata.outputPath.split(/[\\/]/).pop() || undefined
}
