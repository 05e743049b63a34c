// What todowrite and todoread share: what they return, a todo list shown to the model and titled.
import type { Result } from "../../runtime/tool/index.ts"
import type { Todo } from "../../runtime/tool/session-services.ts"

/** The items still to do: neither completed nor cancelled. */
export function openTodos(todos: readonly Todo[]): number {
  return todos.filter((todo) => todo.status === "pending" || todo.status === "in_progress").length
}

/** A list's title: how many items are still to do (`3 todos`). */
export function todoTitle(todos: readonly Todo[]): string {
  const open = openTodos(todos)
  return `${open} todo${open === 1 ? "" : "s"}`
}

/** The list as the model reads it: pretty-printed JSON, in order. */
export function formatTodos(todos: readonly Todo[]): string {
  return JSON.stringify(todos, null, 2)
}

/** What todowrite and todoread put in their results' metadata: the whole list, ids included. */
export interface TodoListMetadata extends Record<string, unknown> {
  todos: Todo[]
}

/** The result both tools give: the list as JSON, titled with how many items are still to do. */
export function todoListResult(todos: Todo[]): Result<TodoListMetadata> {
  return { title: todoTitle(todos), output: formatTodos(todos), metadata: { todos } }
}
