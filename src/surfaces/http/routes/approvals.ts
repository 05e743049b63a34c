// The "always" approvals saved for the project: listed, and revoked one by one.
import { z } from "zod"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, route } from "../route.ts"
import { ErrorBody, IdParams, SavedApproval } from "../schemas.ts"

export function approvalRoutes(deps: ApiDeps): AnyRoute[] {
  const { permission } = deps.toolbelt
  return [
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
        404: { description: "The project has no approval with that id.", schema: ErrorBody },
      },
      handler: ({ params }) => {
        if (!permission.revoke(params.id)) {
          throw new ApiError(
            404,
            `No saved approval ${params.id} in this project. GET /api/approvals lists them.`,
          )
        }
        return undefined
      },
    }),
  ]
}
