import { dirname, join } from "node:path"
import type { Node } from "./parser.ts"

/**
 * Shell words as the scan sees them: quotes removed, and the expansions it can know done (`~`, `$HOME`,
 * `$PWD`, `$OLDPWD`, `$(pwd)`, `<(…)` as `/dev/fd/63`, variables assigned earlier in the same command,
 * loop variables).
 * Anything else stays as its source text and is marked dynamic, so that callers can use the literal
 * prefix and be conservative about the rest.
 */

/** One possible value of a word. */
export interface WordValue {
  /** The text after quote removal; parts the scan cannot know appear as their source text. */
  readonly text: string
  /** Index of the first character that came from an unknown expansion; `text.length` when none. */
  readonly dynamicAt: number
  /** Index of the first unquoted glob or brace character (`*`, `?`, `[`, `{`); `text.length` when none. */
  readonly globAt: number
}

/** What the scan knows when it expands a word. */
export interface Expansions {
  readonly home: string
  /** The current directory (logical, as `cd` leaves it), undefined when unknown. */
  readonly cwd: string | undefined
  readonly oldpwd: string | undefined
  /** Variables assigned in the command so far: their possible values, or undefined when unknown. */
  readonly vars: ReadonlyMap<string, readonly string[] | undefined>
}

/** Cap on the alternatives one word can expand to (loop variables multiply). */
const MAX_ALTERNATIVES = 64

interface Part {
  text: string
  dynamicAt: number // -1: none
  globAt: number // -1: none
}

/** The possible values of a word node (usually exactly one). */
export function wordValues(node: Node, env: Expansions): WordValue[] {
  return parts(node, env, true, false).map(finish)
}

/** The value of a word when the scan knows it entirely (globs allowed), else undefined. */
export function knownValue(values: readonly WordValue[]): string | undefined {
  if (values.length !== 1) return undefined
  const value = values[0]!
  return value.dynamicAt === value.text.length ? value.text : undefined
}

/** The text used to recognise flags and subcommands: the known value, or the first value with its unknown parts as source. */
export function shapeOf(values: readonly WordValue[]): string {
  return values[0]?.text ?? ""
}

function finish(part: Part): WordValue {
  return {
    text: part.text,
    dynamicAt: part.dynamicAt < 0 ? part.text.length : part.dynamicAt,
    globAt: part.globAt < 0 ? part.text.length : part.globAt,
  }
}

const literal = (text: string): Part[] => [{ text, dynamicAt: -1, globAt: -1 }]
const dynamic = (text: string): Part[] => [{ text, dynamicAt: 0, globAt: -1 }]

function parts(node: Node, env: Expansions, atStart: boolean, quoted: boolean): Part[] {
  switch (node.type) {
    case "word":
      return [unquotedWord(node.text, atStart, env)]
    case "number":
    case "file_descriptor":
    case "variable_name":
    case "string_content":
      return literal(node.text)
    case "command_name":
    case "concatenation": {
      let result = literal("")
      let first = true
      for (const child of node.children) {
        result = concat(result, parts(child, env, atStart && first, quoted))
        first = false
      }
      return result
    }
    case "raw_string":
      return literal(node.text.slice(1, -1))
    case "ansi_c_string":
      return literal(decodeAnsiC(node.text.slice(2, -1)))
    case "string": {
      let result = literal("")
      for (const child of node.children) {
        if (child.type === '"') continue
        if (child.type === "string_content") result = concat(result, literal(decodeDoubleQuoted(child.text)))
        else result = concat(result, parts(child, env, false, true))
      }
      return result
    }
    case "simple_expansion":
    case "expansion":
      return variable(node, env, quoted)
    case "command_substitution":
      return isPwd(node) && env.cwd !== undefined ? literal(env.cwd) : dynamic(node.text)
    case "process_substitution":
      // Bash passes a pipe: `/dev/fd/63`.
      return literal("/dev/fd/63")
    default:
      return dynamic(node.text)
  }
}

function concat(left: Part[], right: Part[]): Part[] {
  const result: Part[] = []
  for (const a of left) {
    for (const b of right) {
      if (result.length >= MAX_ALTERNATIVES) return result
      const offset = a.text.length
      result.push({
        text: a.text + b.text,
        dynamicAt: a.dynamicAt >= 0 ? a.dynamicAt : b.dynamicAt >= 0 ? offset + b.dynamicAt : -1,
        globAt: a.globAt >= 0 ? a.globAt : b.globAt >= 0 ? offset + b.globAt : -1,
      })
    }
  }
  return result
}

function variable(node: Node, env: Expansions, quoted: boolean): Part[] {
  const named = node.namedChildren
  const name = named.length === 1 && named[0]!.type === "variable_name" ? named[0]!.text : undefined
  // `${X}` only: any operator (`${X:-y}`, `${#X}`, `${X/a/b}`) makes the value unknown.
  if (name === undefined || (node.type === "expansion" && node.childCount !== 3)) return dynamic(node.text)
  let values: readonly string[] | undefined
  if (env.vars.has(name)) values = env.vars.get(name)
  else if (name === "HOME") values = [env.home]
  else if (name === "PWD") values = env.cwd === undefined ? undefined : [env.cwd]
  else if (name === "OLDPWD") values = env.oldpwd === undefined ? undefined : [env.oldpwd]
  if (values === undefined || values.length === 0) return dynamic(node.text)
  return values.map((text) => ({ text, dynamicAt: -1, globAt: quoted ? -1 : firstGlob(text) }))
}

function firstGlob(text: string): number {
  const match = /[*?[{]/.exec(text)
  return match ? match.index : -1
}

function isPwd(node: Node): boolean {
  const named = node.namedChildren
  if (named.length !== 1 || named[0]!.type !== "command") return false
  const command = named[0]!
  return command.namedChildCount === 1 && command.namedChildren[0]!.text === "pwd"
}

/** An unquoted word: backslash escapes removed, a leading `~` expanded, glob characters located. */
function unquotedWord(raw: string, atStart: boolean, env: Expansions): Part {
  let text = ""
  let dynamicAt = -1
  let globAt = -1
  let i = 0
  if (atStart && raw.startsWith("~")) {
    const slash = raw.indexOf("/")
    const end = slash < 0 ? raw.length : slash
    const user = raw.slice(1, end)
    const expanded = tilde(user, env)
    if (expanded !== undefined) {
      text = expanded
      i = end
    } else if (user === "+" || user === "-") {
      text = raw.slice(0, end)
      dynamicAt = 0
      i = end
    }
  }
  for (; i < raw.length; i++) {
    const char = raw[i]!
    if (char === "\\") {
      const next = raw[i + 1]
      i++
      if (next === undefined) text += "\\"
      else if (next !== "\n") text += next
      continue
    }
    if ((char === "*" || char === "?" || char === "[" || char === "{") && globAt < 0) globAt = text.length
    text += char
  }
  return { text, dynamicAt, globAt }
}

function tilde(user: string, env: Expansions): string | undefined {
  if (user === "") return env.home
  if (user === "+") return env.cwd
  if (user === "-") return env.oldpwd
  // `~user`: assume the user's home sits beside ours (an absolute guess, which is what matters).
  if (/^[A-Za-z_][A-Za-z0-9._-]*$/.test(user)) return join(dirname(env.home), user)
  return undefined
}

/** Content of a double-quoted string: only `\"`, `\\`, `\$`, `` \` `` and `\<newline>` are escapes. */
export function decodeDoubleQuoted(content: string): string {
  return content.replace(/\\(["\\$`]|\r?\n)/g, (_, char: string) => (char.endsWith("\n") ? "" : char))
}

const ANSI_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
}

/** Content of `$'…'`. */
export function decodeAnsiC(content: string): string {
  return content.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (whole, sequence: string) => {
      const head = sequence[0]!
      if (head === "x" || head === "u" || head === "U") {
        const code = Number.parseInt(sequence.slice(1), 16)
        return code <= 0x10ffff ? String.fromCodePoint(code) : whole
      }
      if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(sequence, 8) & 0xff)
      if (head === "c" && sequence.length === 2) return String.fromCharCode(sequence.charCodeAt(1) & 0x1f)
      return ANSI_ESCAPES[sequence] ?? whole
    },
  )
}

/**
 * A node's source text with the whitespace between its children collapsed to one space: runs of spaces,
 * tabs and line continuations between two children become `" "`; children that touch stay touching; any
 * other gap (a newline, a comment) is kept. The children's own text is never changed, so quoting, heredoc
 * bodies and strings are exactly as written. `gap(from, to)` may replace how a gap is rendered.
 */
export function normalisedText(node: Node, gap?: (from: number, to: number) => string): string {
  const children = node.children
  if (children.length === 0) return node.text
  const source = gap ? "" : node.text
  const base = node.startIndex
  const render = gap ?? ((from: number, to: number) => normaliseGap(source.slice(from - base, to - base)))
  let out = ""
  let previousEnd = -1
  for (const child of children) {
    if (previousEnd >= 0) out += render(previousEnd, child.startIndex)
    out += child.text
    previousEnd = child.endIndex
  }
  return out
}

/** Collapses a gap between two tokens when it is only blanks and line continuations. */
export function normaliseGap(gap: string): string {
  if (gap === "") return ""
  return /^(?:[ \t]|\\\r?\n)+$/.test(gap) ? " " : gap
}
