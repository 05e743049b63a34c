import { isFinal } from "./call-outcome.ts"
import type { GroupCommit } from "./group-commit.ts"
import type { Owners } from "./owners.ts"
import type { ToolPart } from "./part.ts"
import type { PartRows } from "./parts.ts"

/** The part a call's last step moved to, in which batch, and whether its row holds it yet. */
interface Latest {
  readonly batch: number
  readonly part: ToolPart
  /** The row as the batch found it, while `part` waits to be written (staged). */
  readonly stored: ToolPart | undefined
  readonly time: number
  readonly written: boolean
}

/** One step's view of its call: the part before the step, and where the part after it goes. */
export interface CallPart {
  /** The call's part as this batch left it, or as its row holds it (undefined: a new call). */
  readonly stored: ToolPart | undefined
  /** Records the part the step moved to: written now, or staged until the batch commits. */
  keep(next: ToolPart, now: number): void
}

/**
 * The journal's parts within a batch. The next step of a call in the same batch (a read-only call's
 * three steps share one) takes its part from here instead of reading and parsing the row again;
 * nothing else writes the row inside the batch's transaction, and another batch reads it. In a staging
 * batch (group-commit.ts, step 6) the row is written once, before the commit, whatever the call's
 * number of steps.
 */
export class CallParts {
  readonly #rows: PartRows
  readonly #group: GroupCommit
  readonly #owners: Owners
  readonly #latest = new Map<string, Latest>()

  constructor(rows: PartRows, group: GroupCommit, owners: Owners) {
    this.#rows = rows
    this.#group = group
    this.#owners = owners
    group.beforeCommit(() => this.#writeStaged())
  }

  /**
   * Inside a batch's write: the call's part, and how to keep the next one. `fresh`: the call's id was
   * minted for it in this process, so no row holds it and none is read.
   */
  take(sessionID: string, callID: string, fresh = false): CallPart {
    const key = callKey(sessionID, callID)
    const batch = this.#group.batch
    const found = this.#latest.get(key)
    const earlier = found?.batch === batch ? found : undefined
    // Taken out now, so a step that fails leaves nothing behind; put back when it succeeds. (A staged
    // part not yet written stays: a failure in a staging batch undoes the whole batch.)
    if (!earlier || earlier.written) this.#latest.delete(key)
    const stored = earlier ? earlier.part : fresh ? undefined : this.#rows.read(sessionID, callID)?.part
    // What the row holds now: as the batch found it while a staged part waits to be written.
    const inRow = earlier && !earlier.written ? earlier.stored : stored
    return {
      stored,
      keep: (next, time) => {
        if (this.#group.staging) {
          this.#latest.set(key, { batch, part: next, stored: inRow, time, written: false })
          return
        }
        this.#rows.write(next, inRow, this.#owners.stamp(), time)
        if (!isFinal(next)) this.#latest.set(key, { batch, part: next, stored: next, time, written: true })
      },
    }
  }

  /** Writes the staged rows of the batch, inside its transaction; those of an earlier, failed batch are dropped. */
  #writeStaged(): void {
    const batch = this.#group.batch
    for (const [key, entry] of this.#latest) {
      if (entry.written) continue
      if (entry.batch !== batch) {
        this.#latest.delete(key)
        continue
      }
      this.#rows.write(entry.part, entry.stored, this.#owners.stamp(), entry.time)
      if (isFinal(entry.part)) this.#latest.delete(key)
      else this.#latest.set(key, { ...entry, stored: entry.part, written: true })
    }
  }
}

/** The key of one call in the journal's own maps. */
export function callKey(sessionID: string, callID: string): string {
  return `${sessionID}\u0000${callID}`
}
