// `@opencode-ai/plugin` as toolbelt answers it (resolve.ts maps the import here), so a tool file written
// for opencode, or copied from the spec's "Adding a Custom Tool", loads in a project with no
// node_modules. It exports what opencode's package does (`tool`, with `tool.schema` = zod, and the
// types) and `Tool`, the API the spec writes tool files with:
//
//   export default Tool.define("my_custom_tool", async () => ({ description, parameters: z.object(...),
//     async execute(params, ctx) { await ctx.ask({ permission, patterns }); await ctx.metadata({ progress: 50 }); ... } }))
//
// `Tool` is toolbelt's tool API (`agent-toolbelt/tool`) with a `define` whose tools get the context in
// the shapes the spec calls it (context.ts) and may return a string or a v1 result.
import type { z } from "zod"
import * as Api from "../../runtime/tool/index.ts"
import { pluginContext } from "./context.ts"
import { checkDef, toResult } from "./from-plugin.ts"
import type { ToolContext } from "./index.ts"

export * from "./index.ts"

/** What a spec-style tool's `execute` receives: toolbelt's call context with opencode's additions. */
export type SpecContext = ToolContext & Api.Context

/** What a spec-style `init` returns: a v1 definition whose `execute` gets `SpecContext`. */
export interface SpecDef<P extends z.ZodType = z.ZodType> {
  readonly description: string
  readonly parameters: P
  execute(
    args: P["_zod"]["output"],
    ctx: SpecContext,
  ): Promise<Api.Result | { title?: string; output: string; metadata?: Record<string, unknown> } | string>
}

/**
 * Defines a tool as the spec does: an id and an `init` (a function of the agent, or the definition
 * itself). The definition is checked when it is initialised (a tool file's is checked at load).
 */
function define<P extends z.ZodType>(
  id: string,
  init: ((ctx?: Api.InitContext) => Promise<SpecDef<P>> | SpecDef<P>) | SpecDef<P>,
  options?: Api.Declarations,
): Api.Info<P> {
  return Api.define(
    id,
    async (ctx?: Api.InitContext) => {
      const def = (typeof init === "function" ? await init(ctx) : init) as SpecDef<P>
      checkDef(id, def)
      return {
        ...def,
        execute: async (args, context) => toResult(id, await def.execute(args, pluginContext(context))),
      } as Api.Def<P>
    },
    options,
  )
}

/** The tool API as the spec imports it from `@opencode-ai/plugin`: `Tool.define`, `Tool.make`, ... */
export const Tool: Omit<typeof Api, "define"> & { readonly define: typeof define } = Object.freeze({
  ...Api,
  define,
})
