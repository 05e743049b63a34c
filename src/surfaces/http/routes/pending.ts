// The flows that wait for a person (permission asks, questions) list what is waiting the same way.
import { z } from "zod"
import { type AnyRoute, route } from "../route.ts"
import { SessionFilter } from "../schemas.ts"

/**
 * `GET /api/<tag>`: the requests of a flow waiting for a person, oldest first; `?session=` keeps one
 * session's.
 */
export function pendingRoute(
  tag: string,
  options: {
    readonly id: string
    readonly summary: string
    /** The response's description: what one request is. */
    readonly description: string
    readonly request: z.ZodType
    /** The flow's pending requests, of one session or all. */
    readonly list: (sessionID?: string) => readonly unknown[]
  },
): AnyRoute {
  return route({
    id: options.id,
    method: "get",
    path: `/api/${tag}`,
    tag,
    summary: options.summary,
    query: SessionFilter,
    responses: { 200: { description: options.description, schema: z.array(options.request) } },
    handler: ({ query }) => options.list(query.session),
  })
}
