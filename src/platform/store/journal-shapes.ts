// What the journal (journal.ts) stores and gives back: its entries, a step's options, what recovery and the
// fleet's sweep did, and the rows behind them.

import type { JournalKind } from "./journal-entry.ts"
import type { ToolPart } from "./part.ts"
import type { PermissionAsked } from "./record-shapes.ts"

/** One line of the append-only journal. `seq` orders all entries of the store. */
export interface JournalEntry {
  readonly seq: number
  readonly sessionID: string
  readonly callID?: string
  readonly kind: JournalKind
  readonly data: unknown
  /** Epoch ms. */
  readonly time: number
}

/**
 * How a step is committed. `defer`: the step needs no commit of its own (nothing waits on it before
 * acting): it rides with the next batch anyone flushes, the call's own next step usually, or commits
 * on its own within `DEFER_MS` (group-commit.ts). Its promise still resolves only once it committed.
 */
export interface StepOptions {
  readonly defer?: boolean
  /**
   * A request whose call id was minted in this process for it (fresh-call-ids.ts): no row can hold it,
   * so the step does not look for one.
   */
  readonly fresh?: boolean
}

/** What a fleet sweep did: the calls it closed, the asks and questions it withdrew. */
export interface Swept {
  readonly interrupted: ToolPart[]
  readonly asks: { readonly id: string; readonly sessionID: string }[]
  readonly questions: { readonly id: string; readonly sessionID: string }[]
}

/** What start-up recovery found: calls it closed as interrupted, and asks still waiting for a reply. */
export interface Recovery {
  readonly interrupted: ToolPart[]
  readonly pendingAsks: PermissionAsked[]
}

export interface AskRow {
  id: string
  session_id: string
  call_id: string | null
  data: string
  owner: string | null
}

export interface EntryRow {
  seq: number
  session_id: string
  call_id: string | null
  kind: JournalKind
  data: string
  time: number
}

/** A journal row as the entry it records. */
export function entryOfRow(row: EntryRow): JournalEntry {
  return {
    seq: row.seq,
    sessionID: row.session_id,
    ...(row.call_id === null ? {} : { callID: row.call_id }),
    kind: row.kind,
    data: JSON.parse(row.data),
    time: row.time,
  }
}
