// The permission service: asks waiting for a reply, and the reply (once, always, or reject with a
// message for the agent); the "always" approvals replies saved for the project, listed and revoked.
import { z } from "zod"
import { internals } from "../../../compose/internals.ts"
import { PermissionNotFoundError } from "../../../runtime/permission/errors.ts"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, errorSpec, route } from "../route.ts"
import { IdParams, PermissionRequest, ReplyBody, SavedApproval } from "../schemas.ts"
import { pendingRoute } from "./pending.ts"

const Replied = z.object({ requestID: z.string(), reply: z.enum(["once", "always", "reject"]) })

export function permissionRoutes(deps: ApiDeps): AnyRoute[] {
  const { permission } = internals(deps.toolbelt)
  return [
    pendingRoute("permissions", {
      id: "listPermissions",
      summary: "The asks waiting for a reply, oldest first",
      description:
        "The pending asks. On a PostgreSQL store shared by several instances, every instance's: a reply given here to an ask another instance raised reaches that instance, whose call goes on or fails as if answered there.",
      request: PermissionRequest,
      list: (sessionID) => permission.list(sessionID),
    }),
    route({
      id: "replyPermission",
      method: "post",
      path: "/api/permissions/:id/reply",
      tag: "permissions",
      summary: "Answers an ask",
      description:
        "`once`: this call goes on. `always`: it goes on, and `{permission, pattern}` is saved for the project for every entry of the ask's `always` list (other pending asks of the session it now covers go on too). `reject`: the call fails, and so do the session's other pending asks; a `message` reaches the model as the reason. Every reply is published as `permission.replied`.",
      params: IdParams,
      body: ReplyBody,
      responses: {
        200: { description: "The reply was applied.", schema: Replied },
        404: errorSpec("No such ask (answered already, or withdrawn)."),
      },
      handler: ({ params, body }) => {
        try {
          permission.reply({
            requestID: params.id,
            reply: body.reply,
            ...(body.message?.trim() ? { message: body.message.trim() } : {}),
          })
        } catch (failure) {
          if (failure instanceof PermissionNotFoundError) {
            throw new ApiError(
              404,
              `No pending ask ${params.id}: it was answered already, or its call ended. List the pending ones with GET /api/permissions.`,
            )
          }
          throw failure
        }
        return { requestID: params.id, reply: body.reply }
      },
    }),
    route({
      id: "listApprovals",
      method: "get",
      path: "/api/approvals",
      tag: "approvals",
      summary: "The project's saved approvals, oldest first",
      description: "A configured deny still beats any of them.",
      responses: { 200: { description: "The approvals.", schema: z.array(SavedApproval) } },
      handler: () => permission.approvals(),
    }),
    route({
      id: "revokeApproval",
      method: "delete",
      path: "/api/approvals/:id",
      tag: "approvals",
      summary: "Revokes a saved approval: what it allowed is asked again",
      params: IdParams,
      responses: {
        204: { description: "Revoked." },
        404: errorSpec("The project has no approval with that id."),
      },
      handler: ({ params }) => {
        if (!permission.revoke(params.id)) {
          throw new ApiError(
            404,
            `No saved approval ${params.id} in this project. List them with GET /api/approvals.`,
          )
        }
        return undefined
      },
    }),
  ]
}
