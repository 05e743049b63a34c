/**
 * An expected, model-visible failure. A tool throws it when the call cannot succeed for a reason the
 * model can act on (file not found, oldString not unique, ...). Anything else a tool throws is a
 * defect: recorded with its stack and shown to the model only as a short error.
 */
// Marks a ToolFailure of any copy of this module (see `Symbol.hasInstance` below).
const BRAND = Symbol.for("agent-toolbelt.tool-failure")

export class ToolFailure extends Error {
  override readonly name = "ToolFailure"
  readonly [BRAND] = true
  /**
   * `instanceof ToolFailure` holds for a failure thrown with another copy of this module too (a plugin
   * importing the package while the command line runs its bundle): otherwise an expected failure would
   * pass for a defect.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true
  }
  /** Extra data recorded on the part (not shown to the model). */
  readonly metadata: Record<string, unknown> | undefined

  constructor(message: string, options?: { metadata?: Record<string, unknown>; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.metadata = options?.metadata
  }
}

export function isToolFailure(error: unknown): error is ToolFailure {
  return error instanceof ToolFailure
}
