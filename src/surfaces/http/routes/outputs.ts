// The full output of a bounded call result, from whichever instance of the fleet saved it.
import { z } from "zod"
import { internals } from "../../../compose/internals.ts"
import { OUTPUT_ID, OUTPUT_PREFIX } from "../../../runtime/output/index.ts"
import { ApiError } from "../api-error.ts"
import type { ApiDeps } from "../deps.ts"
import { type AnyRoute, errorSpec, route } from "../route.ts"

const OutputParams = z.object({
  id: z
    .string()
    .transform((id) => (id.startsWith(OUTPUT_PREFIX) ? id : OUTPUT_PREFIX + id))
    .refine((id) => OUTPUT_ID.test(id), {
      message:
        "Not an output id: give the last segment of the call's metadata.outputPath, tool_ and 26 letters and digits.",
    })
    .describe(
      "The output's id: the file name that ends the call's `metadata.outputPath` (e.g. tool_0a1b2c3d4e5fAbCdEfGhIjKlMn); the `tool_` prefix may be left out.",
    ),
})

export function outputRoutes(deps: ApiDeps): AnyRoute[] {
  const { output } = internals(deps.toolbelt)
  return [
    route({
      id: "getOutput",
      method: "get",
      path: "/api/outputs/:id",
      tag: "calls",
      summary: "The full output of a call whose result was cut, as saved (UTF-8 text)",
      description:
        "A call whose output was too large for the model is recorded with `metadata.truncated: true` and `metadata.outputPath`, the file where the whole output was saved; this returns that output, byte for byte, streamed. On a PostgreSQL store shared by several instances the output is kept in the store (in chunks of 1 MiB) as well, so any instance of the fleet returns it, whichever saved it; on SQLite it is read from this instance's data dir. Outputs are removed after 7 days. The `x-toolbelt-output-source` header says where it was read from: `store` or `file`.",
      params: OutputParams,
      responses: {
        200: { description: "The whole output.", contentType: "text/plain; charset=utf-8" },
        404: errorSpec("No saved output with that id."),
      },
      handler: async ({ params }) => {
        const found = await output.open(params.id)
        if (!found) {
          const where = output.shared
            ? "in the shared store or in this instance's data dir"
            : "in this instance's data dir"
          throw new ApiError(
            404,
            `Output not found: ${params.id}. No output of that id is saved ${where}: outputs are removed after 7 days, and on SQLite only the instance that saved one has it. Give the last segment of a call's metadata.outputPath as the id.`,
          )
        }
        return new Response(found.stream, {
          headers: {
            "content-type": "text/plain; charset=utf-8",
            "content-length": String(found.bytes),
            "x-toolbelt-output-source": found.source,
          },
        })
      },
    }),
  ]
}
