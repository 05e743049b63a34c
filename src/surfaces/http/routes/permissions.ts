// Permission asks waiting for a reply, and the reply: once, always (saves the ask's `always` list),
// or reject with a message for the agent.
import { z } from "zod"
import { PermissionNotFoundError } from "../../../runtime/permission/errors.ts"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, route } from "../route.ts"
import { ErrorBody, IdParams, PermissionRequest, ReplyBody, SessionFilter } from "../schemas.ts"

const Replied = z.object({ requestID: z.string(), reply: z.enum(["once", "always", "reject"]) })

export function permissionRoutes(deps: ApiDeps): AnyRoute[] {
  const { permission } = deps.toolbelt
  return [
    route({
      id: "listPermissions",
      method: "get",
      path: "/api/permissions",
      tag: "permissions",
      summary: "The asks waiting for a reply, oldest first",
      query: SessionFilter,
      responses: {
        200: { description: "The pending asks.", schema: z.array(PermissionRequest) },
        400: { description: "Invalid query.", schema: ErrorBody },
      },
      handler: ({ query }) => permission.list(query.session),
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
        400: { description: "Invalid reply.", schema: ErrorBody },
        404: { description: "No such ask (answered already, or withdrawn).", schema: ErrorBody },
        415: { description: "The body is not JSON.", schema: ErrorBody },
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
              `No pending ask ${params.id}: it was answered already, or its call ended. GET /api/permissions lists the pending ones.`,
            )
          }
          throw failure
        }
        return { requestID: params.id, reply: body.reply }
      },
    }),
  ]
}
