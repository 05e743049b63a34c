// What is recorded for a session besides its calls: its todo list and its journal.
import { z } from "zod"
import { internals } from "../../../compose/internals.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, route } from "../route.ts"
import { JournalEntry, JournalQuery, SessionParams, Todo } from "../schemas.ts"
import { NO_SESSION, requireSession } from "./sessions.ts"

export function recordRoutes(deps: ApiDeps): AnyRoute[] {
  const { store } = internals(deps.toolbelt)
  return [
    route({
      id: "listTodos",
      method: "get",
      path: "/api/sessions/:id/todos",
      tag: "sessions",
      summary: "The session's todo list, in order",
      params: SessionParams,
      responses: { 200: { description: "The todos.", schema: z.array(Todo) }, 404: NO_SESSION },
      handler: ({ params }) => {
        requireSession(deps, params.id)
        return store.todos.get(params.id)
      },
    }),
    route({
      id: "getJournal",
      method: "get",
      path: "/api/sessions/:id/journal",
      tag: "sessions",
      summary: "The session's journal: every step of every call (requested, asked, decided, started, …)",
      params: SessionParams,
      query: JournalQuery,
      responses: {
        200: { description: "The entries, in order.", schema: z.array(JournalEntry) },
        404: NO_SESSION,
      },
      handler: ({ params, query }) => {
        requireSession(deps, params.id)
        return store.journal.entries(params.id, query.call)
      },
    }),
  ]
}
