// What todowrite and todoread share: how a todo list is shown to the model and titled.
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
