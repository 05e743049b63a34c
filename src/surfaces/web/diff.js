// A unified diff (an edit's or a write's `metadata.diff`) as lines marked added, removed, hunk or context.
import { html } from "./html.js"

function kind(line) {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("Index:") || line.startsWith("==="))
    return "meta"
  if (line.startsWith("@@")) return "hunk"
  if (line.startsWith("+")) return "add"
  if (line.startsWith("-")) return "del"
  return "ctx"
}

export function Diff({ text }) {
  const lines = text.replace(/\n$/, "").split("\n")
  return html`<pre class="diff" aria-label="Changes">${lines.map(
    (line) => html`<span class=${`line ${kind(line)}`}>${line}\n</span>`,
  )}</pre>`
}
