import type { ApprovalStore, SavedApproval } from "../../platform/store/saved-approval.ts"
import { ascending } from "../../platform/util/id.ts"

/** Saved approvals kept in memory: for tests and for hosts without a store. */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #approvals = new Map<string, SavedApproval>()

  list(projectID: string): SavedApproval[] {
    return [...this.#approvals.values()].filter((approval) => approval.projectID === projectID)
  }

  add(approval: Omit<SavedApproval, "id" | "time">): SavedApproval {
    const saved: SavedApproval = {
      id: ascending("apr"),
      projectID: approval.projectID,
      permission: approval.permission,
      pattern: approval.pattern,
      time: Date.now(),
    }
    this.#approvals.set(saved.id, saved)
    return saved
  }

  remove(id: string): boolean {
    return this.#approvals.delete(id)
  }
}
