/**
 * Redirections: their pattern texts, their targets queued for the external-directory check, and the
 * standard input a heredoc or here-string gives the command.
 */
import type { PathChecks } from "./external-paths.ts"
import { expansions, type Frame, fork, type Input, tokenOf } from "./frame.ts"
import type { Node } from "./parser.ts"
import { gapText, patternText } from "./pattern-text.ts"
import type { Findings } from "./reasons.ts"
import { knownValue, wordValues } from "./words.ts"

/** What the redirections of one command amount to. */
export interface Redirections {
  /** The redirection nodes and their pattern texts, in order. */
  readonly nodes: Node[]
  readonly texts: string[]
  /** Words the grammar put in a redirection that are really arguments (`echo > a b`: `b`). */
  readonly extra: Node[]
  input: Input | undefined
  /** Statements the grammar nested in a heredoc redirection (`cat <<EOF | sh`, `… <<EOF && b`). */
  readonly trailing: Node[]
}

/** What reading redirections needs from the walk. */
export interface RedirectionContext {
  readonly home: string
  readonly paths: PathChecks
  readonly findings: Findings
  /** Walks a node only for the commands nested in it (substitutions). */
  nested(node: Node | null | undefined, frame: Frame): void
}

/** Reads the redirection nodes of one command (or statement), in order. */
export function readRedirections(
  nodes: readonly Node[],
  frame: Frame,
  context: RedirectionContext,
): Redirections {
  const result: Redirections = { nodes: [], texts: [], extra: [], input: undefined, trailing: [] }
  for (const node of nodes) redirection(node, frame, result, context)
  return result
}

function redirection(node: Node, frame: Frame, into: Redirections, context: RedirectionContext): void {
  const { findings } = context
  switch (node.type) {
    case "file_redirect": {
      const destinations = node.childrenForFieldName("destination")
      const target = destinations[0]
      const operator = node.children.find((child) => !child.isNamed)?.type ?? ""
      const duplicate = operator.endsWith("&") && (target?.type === "number" || target?.text === "-")
      if (target && !duplicate && operator !== ">&-" && operator !== "<&-") {
        context.nested(target, frame)
        context.paths.checkToken(tokenOf(target, frame.state, context.home), 0, "file", frame.state)
      }
      into.extra.push(...destinations.slice(1))
      into.nodes.push(node)
      into.texts.push(patternText(node, frame, findings))
      return
    }
    case "herestring_redirect": {
      context.nested(node, frame)
      const value = node.namedChildren.at(-1)
      if (value) {
        const values = wordValues(value, expansions(frame.state, context.home))
        into.input = { text: values[0]?.text ?? "", dynamic: knownValue(values) === undefined }
      }
      into.nodes.push(node)
      into.texts.push(patternText(node, frame, findings))
      return
    }
    case "heredoc_redirect": {
      let head = ""
      let previousEnd = -1
      let body: Node | undefined
      let end: Node | undefined
      const nested: string[] = []
      for (const child of node.children) {
        if (child.type === "<<" || child.type === "<<-" || child.type === "heredoc_start") {
          if (previousEnd >= 0) head += gapText(frame, previousEnd, child.startIndex, findings)
          head += child.text
          previousEnd = child.endIndex
        } else if (child.type === "heredoc_body") body = child
        else if (child.type === "heredoc_end") end = child
        else if (child.type.endsWith("_redirect")) {
          const inner: Redirections = { nodes: [], texts: [], extra: [], input: undefined, trailing: [] }
          redirection(child, frame, inner, context)
          nested.push(...inner.texts)
          into.extra.push(...inner.extra)
        } else if (child.isNamed) into.trailing.push(child)
      }
      const start = node.children.find((child) => child.type === "heredoc_start")?.text ?? ""
      const quoted = /['"\\]/.test(start)
      if (body && !quoted) context.nested(body, fork(frame))
      // The body from the start of its first line (the grammar's body node may start after `<<-` tabs).
      const first = body ?? end
      const from = first ? frame.source.lastIndexOf("\n", first.startIndex - 1) + 1 : previousEnd
      const content = end
        ? frame.source.slice(from, end.startIndex)
        : frame.source.slice(from, body?.endIndex ?? from)
      const dynamic =
        !quoted && (body?.namedChildren.some((child) => child.type !== "heredoc_content") ?? false)
      into.input = { text: content, dynamic }
      into.nodes.push(node)
      into.texts.push(`${[head, ...nested].join(" ")}\n${content}${end?.text ?? ""}`)
      return
    }
    default:
      context.nested(node, frame)
  }
}

/** A command's text followed by the redirections written after it, with the gaps as in the source. */
export function withRedirections(
  node: Node,
  outer: Redirections | undefined,
  frame: Frame,
  findings: Findings,
): string {
  let text = patternText(node, frame, findings)
  let previousEnd = node.endIndex
  for (let i = 0; i < (outer?.texts.length ?? 0); i++) {
    const redirect = outer!.nodes[i]!
    text += gapText(frame, previousEnd, redirect.startIndex, findings) + outer!.texts[i]!
    previousEnd = redirect.endIndex
  }
  return [text, ...frame.redirects].join(" ")
}
