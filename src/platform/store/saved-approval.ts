/** An "always" approval saved for a project: survives restarts, listable and revocable. */
export interface SavedApproval {
  readonly id: string
  /** The project directory (realpath) the approval belongs to. */
  readonly projectID: string
  readonly permission: string
  readonly pattern: string
  /** Epoch ms. */
  readonly time: number
}

/** Where saved approvals live (the SQLite store implements it; tests may use memory). */
export interface ApprovalStore {
  list(projectID: string): SavedApproval[]
  add(approval: Omit<SavedApproval, "id" | "time">): SavedApproval
  /** Removes one approval; false when there was none with that id. */
  remove(id: string): boolean
}
