/** Line continuations (`\` + newline) outside quotes, which bash removes before it reads a command. */
import type { Node } from "./parser.ts"

/** Node types whose text keeps a backslash-newline as written. */
const VERBATIM: ReadonlySet<string> = new Set([
  "raw_string",
  "string",
  "ansi_c_string",
  "translated_string",
  "heredoc_body",
  "heredoc_content",
  "comment",
])

/** Removes the line continuations (`\` + newline) that are outside quotes, heredocs and comments. */
export function removeContinuations(source: string, root: Node): string {
  let result = ""
  let from = 0
  const pattern = /\\\r?\n/g
  for (let match = pattern.exec(source); match; match = pattern.exec(source)) {
    const at = match.index
    // An escaped backslash (`\\` then a newline) is not a continuation.
    let slashes = 0
    while (at - slashes - 1 >= 0 && source[at - slashes - 1] === "\\") slashes++
    if (slashes % 2 === 1) continue
    let node: Node | null = root.descendantForIndex(at)
    let verbatim = false
    while (node) {
      if (VERBATIM.has(node.type)) {
        verbatim = true
        break
      }
      node = node.parent
    }
    if (verbatim) continue
    result += source.slice(from, at)
    from = at + match[0].length
  }
  return result + source.slice(from)
}
