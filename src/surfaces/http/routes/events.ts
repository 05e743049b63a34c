// `GET /events`: the bus as Server-Sent Events, resumable with `Last-Event-ID`.
import type { ServerResponse } from "node:http"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, route } from "../route.ts"
import { EventsQuery } from "../schemas.ts"
import { eventStream } from "../sse.ts"

export function eventRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    route({
      id: "streamEvents",
      method: "get",
      path: "/events",
      tag: "events",
      summary: "Every event of the bus, live, as Server-Sent Events",
      description:
        'Each event is `data: {"type", "properties"}` with an id `<epoch>.<n>` in the server\'s one order of events (a tool part\'s update comes only once its step is in the journal). On a PostgreSQL store shared by several instances, the stream carries the events of every instance (the fleet), in the store\'s one order, and `<epoch>` names the store: an id from one instance resumes on any other. Types: `message.part.updated` (a call moved: pending, running with live output, completed, error), `permission.asked`, `permission.replied`, `question.asked`, `question.replied`, `todo.updated`, `file.edited`, `file.recovered`, `tool.output.delta`. The stream starts with `server.connected` `{epoch, last, resumed}`. Reconnect with `Last-Event-ID` (or `?after=`) to get exactly the events after it; when that cannot be done (the server restarted, or the id is older than the events it holds) `resumed` is false, or a `server.sync` event says so: fetch the state from the API again. A comment line every 15 s keeps a quiet stream alive. At most 64 clients read at once: one more closes the one furthest behind (one that stopped reading first), which gets `server.closed` `{reason, resume}`: reconnect with `Last-Event-ID` to go on.',
      query: EventsQuery,
      responses: { 200: { description: "The stream.", contentType: "text/event-stream" } },
      handler: ({ query, request, context }) =>
        new Response(
          eventStream({
            log: deps.events,
            lastEventID: request.headers.get("last-event-id") ?? query.after,
            ...(query.session ? { sessions: query.session } : {}),
            ...(deps.heartbeatMs ? { heartbeatMs: deps.heartbeatMs } : {}),
            signal: request.signal,
            // The Node response under the fetch API's (`@hono/node-server`); absent elsewhere.
            disconnect: () => (context.env as { outgoing?: ServerResponse } | undefined)?.outgoing?.destroy(),
          }),
          {
            headers: {
              "content-type": "text/event-stream; charset=utf-8",
              "cache-control": "no-store",
              // Proxies that buffer (nginx) would hold events back.
              "x-accel-buffering": "no",
            },
          },
        ),
    }),
  ]
}
