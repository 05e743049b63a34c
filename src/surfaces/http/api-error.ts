// The API's errors: a status and a message that says what happened and what to do, as JSON.

/** One problem with a request's input: where (`body.input.path`, `query.limit`) and what. */
export interface Issue {
  readonly path: string
  readonly message: string
}

/** An error the API answers with its own status (4xx): the request, not the server, is at fault. */
export class ApiError extends Error {
  override readonly name = "ApiError"
  readonly status: number
  readonly issues: readonly Issue[] | undefined

  constructor(status: number, message: string, issues?: readonly Issue[]) {
    super(message)
    this.status = status
    this.issues = issues
  }
}

/** The body of every error response: `{"error": "...", "issues": [...]}`. */
export function errorBody(message: string, issues?: readonly Issue[]): { error: string; issues?: Issue[] } {
  return issues?.length ? { error: message, issues: [...issues] } : { error: message }
}

/** A JSON error response (also for refusals made before any route runs). */
export function errorResponse(
  status: number,
  message: string,
  options: { issues?: readonly Issue[]; headers?: Record<string, string> } = {},
): Response {
  return new Response(JSON.stringify(errorBody(message, options.issues)), {
    status,
    headers: { "content-type": "application/json", ...options.headers },
  })
}
