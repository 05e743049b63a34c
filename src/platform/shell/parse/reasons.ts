/** What the scan could not see through (`Scan.reasons`), and whether it could not parse the command. */
import type { Node } from "./parser.ts"

/** The reasons collected while scanning, in the order found. */
export class Findings {
  readonly reasons: string[] = []
  /** True once the command (or a nested script) could not be parsed: the caller must ask for all of it. */
  failed = false

  /** Notes something the scan could not see through. */
  note(reason: string): void {
    this.reasons.push(reason)
  }

  /** Notes a reason the command counts as unparsed. */
  fail(reason: string): void {
    this.failed = true
    this.reasons.push(reason)
  }
}

/** Where the first syntax error is, for `reasons`. */
export function syntaxError(root: Node): string {
  const stack = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "ERROR" || node.isMissing) {
      const { row, column } = node.startPosition
      return `syntax error at line ${row + 1}, column ${column + 1}${node.isMissing ? ` (missing ${node.type})` : ""}`
    }
    if (node.hasError) stack.push(...[...node.children].reverse())
  }
  return "syntax error"
}
