// An agent turn in a session: the configured model calls the tools until it answers, streamed.

import { internals } from "../../../compose/internals.ts"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, errorSpec, route } from "../route.ts"
import { SessionParams, TurnBody } from "../schemas.ts"
import { NO_SESSION, requireSession } from "./sessions.ts"

export function turnRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    route({
      id: "runTurn",
      method: "post",
      path: "/api/sessions/:id/turns",
      tag: "turns",
      summary: "Runs an agent turn in the session with the server's model, streamed as JSON lines",
      description:
        'One JSON object per line: `{"type":"start","sessionID","messageID"}`, then `{"type":"text","text"}` as the model writes and `{"type":"part","part"}` as its tool calls move, then `{"type":"finish","status","text","error"?,"stepLimit"}` (status: finished, blocked, failed or aborted). Closing the connection aborts the turn. Needs a model: `toolbelt serve --model provider/id`.',
      params: SessionParams,
      body: TurnBody,
      responses: {
        200: { description: "The turn, as it happens.", contentType: "application/x-ndjson" },
        404: NO_SESSION,
        409: errorSpec("The server has no model."),
      },
      handler: async ({ params, body, request }) => {
        const session = requireSession(deps, params.id)
        const model = deps.model
        if (!model) {
          throw new ApiError(
            409,
            "No model: start toolbelt serve with --model provider/id (or set TOOLBELT_MODEL), e.g. --model openai-compatible/qwen3 --base-url http://127.0.0.1:8080/v1.",
          )
        }
        // Loaded on the first turn: a server that never runs one never loads the AI SDK.
        const { runTurn } = await import("../../../adapters/ai/loop.ts")
        const { toolbelt } = deps
        const encoder = new TextEncoder()
        const abort = new AbortController()
        const onAbort = () => abort.abort(new Error("The client closed the connection."))
        request.signal.addEventListener("abort", onAbort, { once: true })
        let offParts: (() => void) | undefined
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            const send = (line: unknown) => {
              if (!abort.signal.aborted) controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`))
            }
            void runTurn({
              toolbelt,
              model,
              prompt: body.prompt,
              sessionID: session.id,
              agent: session.agent,
              abort: abort.signal,
              ...(body.steps ? { steps: body.steps } : {}),
              onStart: ({ sessionID, messageID }) => {
                send({ type: "start", sessionID, messageID })
                offParts = toolbelt.subscribe("message.part.updated", ({ properties: { part } }) => {
                  if (part.sessionID === sessionID) send({ type: "part", part })
                })
              },
              onPart: (part) => {
                if (part.type === "text-delta") send({ type: "text", text: part.text })
              },
            })
              .then(async (result) => {
                await internals(toolbelt).bus.idle()
                send({
                  type: "finish",
                  status: result.status,
                  text: result.text,
                  stepLimit: result.stepLimit,
                  ...(result.error ? { error: result.error } : {}),
                })
              })
              .catch((failure: unknown) => {
                send({ type: "finish", status: "failed", text: "", error: String(failure), stepLimit: false })
              })
              .finally(() => {
                offParts?.()
                request.signal.removeEventListener("abort", onAbort)
                if (!abort.signal.aborted) controller.close()
              })
          },
          cancel() {
            onAbort()
          },
        })
        return new Response(stream, {
          headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" },
        })
      },
    }),
  ]
}
