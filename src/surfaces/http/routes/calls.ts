// A tool call in a session, through the full pipeline (validation, permission, bounding, the journal).
import type { Settlement as RuntimeSettlement } from "../../../runtime/settle/settle.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, errorSpec, route } from "../route.ts"
import { CallBody, SessionParams, Settlement } from "../schemas.ts"
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
  ]
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
