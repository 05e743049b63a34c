// A session's todo list.
import { html } from "./html.js"

const MARK = { pending: "○", in_progress: "◐", completed: "●", cancelled: "✕" }

export function Todos({ todos }) {
  if (!todos?.length) return null
  return html`<section class="todos" aria-labelledby="todos-heading">
    <h3 id="todos-heading">Todos</h3>
    <ul>
      ${todos.map(
        (todo) => html`<li key=${todo.id} class=${`todo ${todo.status}`}>
          <span aria-hidden="true">${MARK[todo.status] ?? "○"}</span>
          <span>${todo.content}</span>
          <span class="visually-hidden">(${todo.status.replace("_", " ")})</span>
        </li>`,
      )}
    </ul>
  </section>`
}
