import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { READS_ONLY } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { type TodoListMetadata, todoListResult } from "../kit/todo-list.ts"

const parameters = builtinSchema("todoread", () => z.object({}))
type Parameters = Tool.SchemaOf<typeof parameters>

/**
 * The `todoread` tool: the session's todo list as todowrite last left it (in any process).
 *
 * 1. Ask `todoread` (pattern and always `*`).
 * 2. Read the session's list from the store.
 * 3. Shape: the list as JSON, titled with how many items are still to do.
 */
export const TodoReadTool = Tool.define<Parameters, TodoListMetadata>(
  "todoread",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(_params, ctx) {
      // 1. Ask.
      await ctx.ask({ permission: "todoread", patterns: ["*"], always: ["*"], metadata: {} })
      // 2. Read.
      const todos = services(ctx).todos.get(ctx.sessionID)
      // 3. Shape.
      return todoListResult(todos)
    },
  }),
  {
    annotations: READS_ONLY, // Reads the list todowrite keeps: hidden wherever todowrite is denied (subagents).
    permission: "todowrite",
  },
)
