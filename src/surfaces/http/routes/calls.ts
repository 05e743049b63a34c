// A tool call in a session, through the full pipeline (validation, permission, bounding, the journal),
// and stopping one that runs, whoever started it.
import { z } from "zod"
import { internals } from "../../../compose/internals.ts"
import type { Settlement as RuntimeSettlement } from "../../../runtime/settle/settle.ts"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, errorSpec, route } from "../route.ts"
import { CallBody, SessionID, SessionParams, Settlement, ToolPart } from "../schemas.ts"
import { checkAgent, NO_SESSION, requireSession } from "./sessions.ts"

export function callRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    route({
      id: "callTool",
      method: "post",
      path: "/api/sessions/:id/calls",
      tag: "calls",
      summary: "Calls a tool in a session and answers with its settlement",
      description:
        "The call runs as the session's agent. It shows up on `/events` as it moves (pending, running with live output, completed or error); an ask the policy leaves open waits for `POST /api/permissions/{id}/reply`. A tool's own error is a 200 with `status: \"error\"`. Closing the connection aborts the call.",
      params: SessionParams,
      body: CallBody,
      responses: {
        200: { description: "How the call ended.", schema: Settlement },
        400: errorSpec("Invalid input (unknown agent, malformed body)."),
        404: NO_SESSION,
      },
      handler: async ({ params, body, request }) => {
        const session = requireSession(deps, params.id)
        const agent = body.agent ?? session.agent
        checkAgent(deps, agent)
        const settlement = await deps.toolbelt.call({
          tool: body.tool,
          input: body.input,
          sessionID: session.id,
          agent,
          abort: request.signal,
          ...(body.callID ? { callID: body.callID } : {}),
        })
        return shape(settlement)
      },
    }),
    route({
      id: "abortCall",
      method: "post",
      path: "/api/sessions/:id/calls/:callID/abort",
      tag: "calls",
      summary: "Stops a running call, whoever started it (the API, an MCP client, a turn)",
      description:
        'The call ends as interrupted (`status: "error"`, `metadata.interrupted: true`), the processes it started killed, and its record says who stopped it (`metadata.stoppedBy`: `by`). Answers once it has ended, with its recorded part. A call waiting for a permission ask is stopped too (the ask is withdrawn).',
      params: CallParams,
      query: AbortQuery,
      responses: {
        200: { description: "The call ended; its final part.", schema: z.object({ part: ToolPart }) },
        404: errorSpec("No such session, or no call with that id in it."),
        409: errorSpec(
          "The call has already ended, or it runs on another toolbelt instance sharing the store (stop it there).",
        ),
      },
      handler: async ({ params, query }) => {
        const session = requireSession(deps, params.id)
        const stopping = deps.toolbelt.stopCall(session.id, params.callID, query.by)
        if (!stopping) throw notRunningHere(deps, session.id, params.callID)
        await stopping
        const part = internals(deps.toolbelt).store.parts.get(session.id, params.callID)
        return { part }
      },
    }),
  ]
}

const CallParams = z.object({
  id: SessionID,
  callID: z.string().min(1).max(200).describe("The call's id (`part.callID`)."),
})

const AbortQuery = z.object({
  by: z
    .enum(["page", "api"])
    .default("api")
    .describe("Who stops it, as the record will say: `page` (the page's Stop button) or `api` (default)."),
})

/** Why a call this process is not running cannot be stopped here: unknown (404), ended or elsewhere (409). */
function notRunningHere(deps: ApiDeps, sessionID: string, callID: string): ApiError {
  const part = internals(deps.toolbelt).store.parts.get(sessionID, callID)
  if (!part)
    return new ApiError(
      404,
      `Call not found: no call ${callID} in session ${sessionID}. GET /api/sessions/${sessionID} lists its calls.`,
    )
  const { status } = part.state
  if (status === "completed" || status === "error")
    return new ApiError(
      409,
      `The call ${callID} has already ended (${status}): there is nothing to stop. See how it ended with GET /api/sessions/${sessionID}.`,
    )
  return new ApiError(
    409,
    `The call ${callID} is ${status}, but not in this server's process: another toolbelt instance sharing this store runs it (stop it through that instance), or the process that ran it is gone and the fleet's sweep will record it interrupted.`,
  )
}

/** The settlement as the API gives it: what the model would read, and the recorded part. */
function shape(settlement: RuntimeSettlement): unknown {
  if (settlement.status === "completed") {
    const { title, output, metadata, attachments, part } = settlement
    return { status: "completed", title, output, metadata, attachments, part }
  }
  const { error, kind, blocked, metadata, part } = settlement
  return { status: "error", error, kind, blocked, metadata, part }
}
