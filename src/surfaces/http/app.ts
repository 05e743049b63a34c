// The Hono app of `toolbelt serve`: the guard, the API's routes, the OpenAPI document, the event
// stream, the MCP endpoint and the page, in one place.
import { Hono } from "hono"
import { logger } from "../../platform/util/log.ts"
import { jsonRpcRefusal, refuse } from "../mcp-server/guard.ts"
import { MCP_PATH, type McpHandler } from "../mcp-server/http.ts"
import { ApiError, errorResponse } from "./api-error.ts"
import type { ApiDeps } from "./deps.ts"
import { openApiDocument } from "./openapi.ts"
import { mountPage } from "./page.ts"
import { type AnyRoute, mount } from "./route.ts"
import { callRoutes } from "./routes/calls.ts"
import { eventRoutes } from "./routes/events.ts"
import { messageRoutes } from "./routes/messages.ts"
import { outputRoutes } from "./routes/outputs.ts"
import { permissionRoutes } from "./routes/permissions.ts"
import { questionRoutes } from "./routes/questions.ts"
import { recordRoutes } from "./routes/records.ts"
import { serverRoutes } from "./routes/server-info.ts"
import { sessionRoutes } from "./routes/sessions.ts"
import { toolRoutes } from "./routes/tools.ts"
import { turnRoutes } from "./routes/turns.ts"

const log = logger("serve")

/** Paths anyone who passes the Host and Origin checks may fetch: the page's files, the login, the API's description. */
const PUBLIC = /^\/(assets\/[^/]+|vendor\/[^/]+|api\/login|openapi\.json)?$/

export interface AppOptions extends ApiDeps {
  readonly mcp: McpHandler
  /** The MCP endpoint's guard: the bound address, and the token its clients send as a bearer. */
  readonly bind: { readonly host: string; readonly token?: string }
  /** The largest API request body. */
  readonly maxRequestBytes: number
}

/** Every route of the API, in the order the OpenAPI document lists them. */
export function apiRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    ...serverRoutes(deps),
    ...toolRoutes(deps),
    ...sessionRoutes(deps),
    ...callRoutes(deps),
    ...outputRoutes(deps),
    ...turnRoutes(deps),
    ...messageRoutes(deps),
    ...recordRoutes(deps),
    ...permissionRoutes(deps),
    ...questionRoutes(deps),
    ...eventRoutes(deps),
  ]
}

/**
 * The app. A request:
 * 1. `/mcp` is the MCP endpoint, behind the same guard as `toolbelt mcp --http` (Host, Origin,
 *    Sec-Fetch-Site: the API's rules; the bearer token) and its own body limit.
 * 2. Anything else must come from where it may (Host, Origin, Sec-Fetch-Site) and, when the server
 *    has a token, carry it or the page's cookie (the page's own files, the login and the OpenAPI
 *    document excepted).
 * 3. API bodies are bounded (413 with the limit), read by the routes that take one.
 * 4. The routes; anything else is a 404 that points at `/openapi.json`.
 * 5. An `ApiError` is answered with its status and message; anything else is a 500, logged.
 */
export function createApp(options: AppOptions): Hono {
  const app = new Hono()
  const { access } = options

  // 1. MCP.
  app.all(MCP_PATH, (context) => {
    const refused = refuse(context.req.raw, options.bind)
    return refused ?? options.mcp.handle(context.req.raw)
  })
  app.all(`${MCP_PATH}/*`, () => jsonRpcRefusal(404, `Not found: the MCP endpoint is ${MCP_PATH}.`))

  // 2. The guard.
  app.use("*", async (context, next) => {
    const request = context.req.raw
    const refused = access.refuseOrigin(request)
    if (refused) return refused
    if (!PUBLIC.test(context.req.path) && !access.admits(request)) return access.unauthorized()
    return next()
  })

  // 4. Routes.
  const routes = apiRoutes(options)
  // 3. Bounded bodies are read by each route.
  mount(app, routes, { maxBodyBytes: options.maxRequestBytes })
  const document = openApiDocument(routes, {
    title: "toolbelt serve",
    version: options.version,
    description: `The HTTP API of toolbelt for the project at ${options.toolbelt.directory}: its tools, sessions, calls, permission asks and saved approvals, and its events as SSE. MCP clients connect to ${MCP_PATH} (streamable HTTP).`,
  })
  app.get("/openapi.json", (context) => context.json(document))
  mountPage(app, access)
  app.notFound((context) =>
    errorResponse(
      404,
      `Not found: ${context.req.method} ${context.req.path}. The API is described at /openapi.json.`,
    ),
  )

  // 5. Errors.
  app.onError((error) => {
    if (error instanceof ApiError) return errorResponse(error.status, error.message, { issues: error.issues })
    log.error("request failed", { error: error.stack ?? String(error) })
    return errorResponse(500, `Internal error: ${error.message}. The server's log has the details.`)
  })
  return app
}
