// A session's conversation: the prompts and the model's replies of its turns, as the agent loop stores
// them (the calls are the session's parts; an assistant step names the calls it made, in order).
import { z } from "zod"
import { internals } from "../../../compose/internals.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, route } from "../route.ts"
import { SessionParams } from "../schemas.ts"
import { NO_SESSION, requireSession } from "./sessions.ts"

const Message = z.object({
  id: z.string().describe("msg_…; an assistant message's calls carry it as their `messageID`."),
  sessionID: z.string(),
  role: z.string().describe("`user` (a prompt, or what background subagents said) or `assistant`."),
  data: z
    .unknown()
    .describe(
      'A user message: `{"role":"user","text"}`. An assistant message: `{"role":"assistant","steps":[{"text","calls":[{"callID","tool"}]}]}`, one step per model call.',
    ),
  time: z.number().describe("Epoch milliseconds: when it was stored."),
})

export function messageRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    route({
      id: "listMessages",
      method: "get",
      path: "/api/sessions/:id/messages",
      tag: "sessions",
      summary:
        "The session's turns: each prompt and each reply of the model, with the calls it made, in order",
      description:
        "Live on `/events`: `message.updated` (a message stored, in this shape) and `message.text.delta` (the model's text as it streams, before its message is stored).",
      params: SessionParams,
      responses: {
        200: { description: "The messages, oldest first.", schema: z.array(Message) },
        404: NO_SESSION,
      },
      handler: ({ params }) => {
        requireSession(deps, params.id)
        return internals(deps.toolbelt).store.messages.list(params.id)
      },
    }),
  ]
}
