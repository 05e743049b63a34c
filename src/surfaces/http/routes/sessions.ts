// Sessions: list (with search), create, and one session with its calls, todos and pending asks.
import { z } from "zod"
import { internals } from "../../../compose/internals.ts"
import { isPostgres } from "../../../platform/store/postgres/database.ts"
import type { SessionInfo } from "../../../platform/store/sessions.ts"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, errorSpec, route } from "../route.ts"
import {
  NewSession,
  PermissionRequest,
  QuestionRequest,
  Session,
  SessionParams,
  SessionsQuery,
  Todo,
  ToolPart,
} from "../schemas.ts"
import { HOST } from "../session-index.ts"

const SessionDetail = z.object({
  session: Session,
  parts: z.array(ToolPart).describe("Its tool calls, in the order they were made."),
  todos: z.array(Todo),
  permissions: z.array(PermissionRequest).describe("Its asks waiting for a reply."),
  questions: z.array(QuestionRequest).describe("Its questions waiting for answers."),
})

/** The 404 `requireSession` gives, as the routes that use it document it. */
export const NO_SESSION = errorSpec("No such session.")

/** The session's row (as `SessionIndex.get` remembers it); a 404 that says how to find or make one otherwise. */
export function requireSession(deps: ApiDeps, id: string): SessionInfo {
  return deps.sessions.get(id) ?? noSession(id)
}

/** The session's row as the store has it now; the same 404 otherwise. */
function requireStoredSession(deps: ApiDeps, id: string): SessionInfo {
  return internals(deps.toolbelt).store.sessions.get(id) ?? noSession(id)
}

function noSession(id: string): never {
  throw new ApiError(
    404,
    `Session not found: ${id}. List the sessions with GET /api/sessions, or create one with POST /api/sessions.`,
  )
}

export function sessionRoutes(deps: ApiDeps): AnyRoute[] {
  const { toolbelt } = deps
  const { store } = internals(toolbelt)
  return [
    route({
      id: "listSessions",
      method: "get",
      path: "/api/sessions",
      tag: "sessions",
      summary:
        "The project's sessions (on a shared PostgreSQL store, the fleet's), most recently active first",
      description:
        "On the embedded SQLite store, the sessions of this server's project unless `project` names another. On a PostgreSQL store, which many instances share, every session of the fleet, each with the `host` and project (`projectID`) it was created on: filter with `host` and `project`.",
      query: SessionsQuery,
      responses: { 200: { description: "The sessions.", schema: z.array(Session) } },
      handler: ({ query }) => {
        const fleet = isPostgres(store.db)
        const projectID = query.project ?? (fleet ? undefined : toolbelt.directory)
        const all = store.sessions.list({
          ...(projectID === undefined ? {} : { projectID }),
          ...(query.host === undefined ? {} : { host: query.host }),
        })
        const needle = query.search?.trim().toLowerCase()
        const found = needle
          ? all.filter((session) => `${session.title}\n${session.id}`.toLowerCase().includes(needle))
          : all
        return found.slice(0, query.limit)
      },
    }),
    route({
      id: "createSession",
      method: "post",
      path: "/api/sessions",
      tag: "sessions",
      summary: "Creates a session (its calls share a read ledger, todos and session approvals)",
      body: NewSession,
      responses: {
        201: { description: "The new session.", schema: Session },
        400: errorSpec("Invalid input (unknown agent, malformed body)."),
      },
      handler: ({ body }) => {
        const agent = body.agent ?? deps.agent
        checkAgent(deps, agent)
        const session = store.sessions.create({
          projectID: toolbelt.directory,
          host: HOST,
          agent,
          title: body.title ?? "",
        })
        deps.sessions.add(session)
        // The page lists it at once, before its first call.
        internals(toolbelt).bus.publish("session.created", { sessionID: session.id, session })
        return session
      },
    }),
    route({
      id: "getSession",
      method: "get",
      path: "/api/sessions/:id",
      tag: "sessions",
      summary: "One session: its calls with their states, its todos, its pending asks and questions",
      params: SessionParams,
      responses: {
        200: { description: "The session.", schema: SessionDetail },
        404: NO_SESSION,
      },
      handler: ({ params }) => ({
        // The store's row, not the index's: its `time.updated` is current.
        session: requireStoredSession(deps, params.id),
        parts: store.parts.list(params.id),
        todos: store.todos.get(params.id),
        permissions: toolbelt.permission.list(params.id),
        questions: toolbelt.questions.list(params.id),
      }),
    }),
  ]
}

/** A 400 naming the agents there are, for an agent the policy does not know. */
export function checkAgent(deps: ApiDeps, agent: string): void {
  try {
    internals(deps.toolbelt).policy.rulesOf(agent)
  } catch (failure) {
    throw new ApiError(400, (failure as Error).message)
  }
}
