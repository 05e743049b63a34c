// The server itself: what it serves, and the login that gives the page its cookie.
import { z } from "zod"
import type { ProjectTrust } from "../../../runtime/config/trust/project-trust.ts"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, errorSpec, route } from "../route.ts"
import { ServerInfo } from "../schemas.ts"
import { HOST } from "../session-index.ts"

/** What the page shows of the project's trust: what was left out, and the command that trusts it. */
function trustInfo(trust: ProjectTrust) {
  return {
    trusted: trust.trusted,
    reason: trust.reason,
    leftOut: trust.leftOut.map(({ kind, file, detail }) => ({ kind, file, detail })),
    howToTrust: trust.howToTrust,
  }
}

const LoginBody = z.object({ token: z.string().min(1).max(1000) }).strict()

export function serverRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    route({
      id: "getInfo",
      method: "get",
      path: "/api/info",
      tag: "server",
      summary:
        "The project, the version, the model, whether a token is needed, the project's trust, and what is not offered and why",
      responses: { 200: { description: "The server.", schema: ServerInfo } },
      handler: async () => ({
        directory: deps.toolbelt.directory,
        host: HOST,
        version: deps.version,
        model: deps.model?.spec ?? null,
        auth: deps.access.required,
        epoch: deps.events.epoch,
        trust: trustInfo(deps.toolbelt.trust),
        notOffered: await deps.toolbelt.withheld({ agent: deps.agent, client: "http" }),
      }),
    }),
    route({
      id: "login",
      method: "post",
      path: "/api/login",
      tag: "server",
      summary: "Trades the token for the page's cookie (HttpOnly, SameSite=Strict)",
      body: LoginBody,
      responses: {
        204: { description: "Logged in: the response sets the cookie." },
        400: errorSpec("No token on this server, or the body is not `{token}`."),
        401: errorSpec("Not the token."),
      },
      handler: ({ body, context }) => {
        if (!deps.access.required)
          throw new ApiError(
            400,
            "This server has no token: nothing to log in to. Open the page without logging in.",
          )
        const cookie = deps.access.login(body.token)
        if (!cookie)
          throw new ApiError(
            401,
            "Unauthorized: that is not this server's token. Use the token toolbelt serve printed when it started (or the one given with --token or TOOLBELT_SERVE_TOKEN).",
          )
        context.header("set-cookie", cookie)
        return undefined
      },
    }),
  ]
}
