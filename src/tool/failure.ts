/**
 * An expected, model-visible failure. A tool throws it when the call cannot succeed for a reason the
 * model can act on (file not found, oldString not unique, ...). Anything else a tool throws is a
 * defect: recorded with its stack and shown to the model only as a short error.
 */
export class ToolFailure extends Error {
  override readonly name = "ToolFailure"
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
