// What each journal step appends (journal.ts): small entries recording a call's movement, while the
// part row holds its content.
import type { ToolPart, ToolState } from "./part.ts"

export type JournalKind =
  | "requested"
  | "asked"
  | "decided"
  | "started"
  | "progress"
  | "finished"
  | "interrupted"

/**
 * What a step appends. Entries stay small: the part row holds the content (input, output, metadata),
 * and a final part never changes (but for a late result beside an interruption), so the journal records
 * the movement and the part row the result.
 */
export function entryData(kind: JournalKind, part: ToolPart): string {
  const state = part.state
  switch (state.status) {
    case "pending":
      return JSON.stringify({ partID: part.id, messageID: part.messageID, tool: part.tool })
    case "running":
      return JSON.stringify(kind === "progress" ? { title: state.title } : { start: state.time.start })
    case "completed":
      return JSON.stringify({ status: state.status, title: state.title, time: state.time })
    case "error":
      return JSON.stringify({
        status: state.status,
        error: state.error,
        ...(state.metadata?.interrupted === true ? { interrupted: true } : {}),
        time: state.time,
      })
  }
}

/** The entry of a late result: a call swept while it ran that finished after all (`withLateResult`). */
export function lateEntryData(state: ToolState): string {
  const time = "time" in state ? state.time : undefined
  return JSON.stringify({ late: true, status: state.status, time })
}
