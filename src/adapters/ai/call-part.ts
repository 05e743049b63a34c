// The names and first parts of the calls the stream processor sees: what it records before settlement.
import type { ToolPart } from "../../platform/store/part.ts"
import type { CallEntry } from "./calls.ts"
import { INVALID, matchCase } from "./repair.ts"

export interface PendingPartOptions {
  readonly entry: CallEntry
  readonly sessionID: string
  readonly messageID: string
  /** The input so far (default: none yet). */
  readonly state?: ToolPart["state"]
}

/** The part of a call whose input is still arriving, with the entry's part id, call id and tool name. */
export function pendingPart({
  entry,
  sessionID,
  messageID,
  state = { status: "pending", input: {}, raw: "" },
}: PendingPartOptions): ToolPart {
  return {
    id: entry.partID,
    sessionID,
    messageID,
    type: "tool",
    callID: entry.callID,
    tool: entry.tool,
    state,
  }
}

/**
 * The name a call is recorded under: the model's, its case repaired to a tool of `offered`; an `invalid`
 * call's meant tool (its input's `tool`).
 */
export function recordedName(toolName: string, input: unknown, offered: readonly string[]): string {
  if (toolName === INVALID) {
    const meant = (input as { tool?: unknown } | undefined)?.tool
    if (typeof meant === "string" && meant) return matchCase(meant, offered) ?? meant
    return INVALID
  }
  return matchCase(toolName, offered) ?? toolName
}
