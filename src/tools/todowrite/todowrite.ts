import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import type { Todo } from "../../runtime/tool/session-services.ts"
import { loadText } from "../kit/load-text.ts"
import { type TodoListMetadata, todoListResult } from "../kit/todo-list.ts"

const parameters = builtinSchema("todowrite", () => {
  const item = z.object({
    content: z.string().trim().min(1).describe("What to do, briefly and specifically"),
    status: z
      .enum(["pending", "in_progress", "completed", "cancelled"])
      .describe("pending, in_progress (being worked on now), completed, or cancelled (no longer needed)"),
    priority: z.enum(["high", "medium", "low"]).describe("high, medium or low"),
    id: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe("The item's id from the list you were last shown; omit it for a new item"),
  })
  return z.object({
    todos: z
      .array(item)
      .describe("The whole updated list, in order: every item, changed or not (it replaces the list)")
      .superRefine((todos, check) => {
        const seen = new Set<string>()
        todos.forEach((todo, index) => {
          if (todo.id === undefined) return
          if (seen.has(todo.id))
            check.addIssue({
              code: "custom",
              path: [index, "id"],
              message: `id "${todo.id}" is used by two items: give each item its own id, or omit it`,
            })
          seen.add(todo.id)
        })
      }),
  })
})
type Parameters = Tool.SchemaOf<typeof parameters>

/**
 * The `todowrite` tool: replaces the session's todo list.
 *
 * 1. Ask `todowrite` (pattern and always `*`).
 * 2. Give every item an id: its own; else, kept stable, the id of the previous list's item with the
 *    same content (not already taken); else the next free number.
 * 3. Replace the session's list atomically in the store and publish `todo.updated`.
 * 4. Shape: the list as JSON, titled with how many items are still to do.
 */
export const TodoWriteTool = Tool.define<Parameters, TodoListMetadata>(
  "todowrite",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // 1. Ask.
      await ctx.ask({ permission: "todowrite", patterns: ["*"], always: ["*"], metadata: {} })

      // 2. Ids.
      const { todos: lists, publish } = services(ctx)
      const todos = withIds(params.todos, lists.get(ctx.sessionID))

      // 3. Store and publish.
      lists.set(ctx.sessionID, todos)
      publish("todo.updated", { sessionID: ctx.sessionID, todos })

      // 4. Shape.
      return todoListResult(todos)
    },
  }),
  { annotations: { idempotent: true } },
)

/** The items with ids: their own, else a previous item's with the same content, else the next free number. */
export function withIds(items: z.output<Parameters>["todos"], previous: readonly Todo[]): Todo[] {
  const taken = new Set(items.flatMap((item) => (item.id === undefined ? [] : [item.id])))
  const byContent = new Map<string, string[]>()
  for (const todo of previous) {
    if (taken.has(todo.id)) continue
    const ids = byContent.get(todo.content) ?? []
    ids.push(todo.id)
    byContent.set(todo.content, ids)
  }
  let next =
    Math.max(0, ...[...previous.map((todo) => todo.id), ...taken].map(Number).filter(Number.isInteger)) + 1
  const fresh = () => {
    while (taken.has(String(next))) next++
    return String(next++)
  }
  return items.map((item) => {
    const id = item.id ?? byContent.get(item.content)?.shift() ?? fresh()
    taken.add(id)
    return { id, content: item.content, status: item.status, priority: item.priority }
  })
}
