// The parsed form of a ripgrep (Rust `regex`) pattern: the node and class types, and the tree queries
// the compiler needs before translating it.

export interface Flags {
  readonly i: boolean
  readonly u: boolean
  readonly x: boolean
  readonly U: boolean
}

export type Node =
  | { readonly type: "lit"; readonly cp: number; readonly ci: boolean }
  | { readonly type: "any" }
  | { readonly type: "class"; readonly set: ClassSet; readonly ci: boolean }
  | { readonly type: "assert"; readonly kind: "start" | "end" | "word" | "notWord"; readonly u: boolean }
  | { readonly type: "group"; readonly node: Node }
  | { readonly type: "concat"; readonly items: readonly Node[] }
  | { readonly type: "alt"; readonly items: readonly Node[] }
  | {
      readonly type: "repeat"
      readonly node: Node
      readonly min: number
      readonly max: number
      readonly greedy: boolean
    }

/** A bracket class, a Perl class (`\w`), a Unicode property or a POSIX class, as a set of code points. */
export type ClassSet =
  | { readonly kind: "union"; readonly negated: boolean; readonly items: readonly ClassItem[] }
  | {
      readonly kind: "op"
      readonly negated: boolean
      readonly op: "&&" | "--" | "~~"
      readonly left: ClassSet
      readonly right: ClassSet
    }

export type ClassItem =
  | { readonly kind: "char"; readonly cp: number }
  | { readonly kind: "range"; readonly lo: number; readonly hi: number }
  | { readonly kind: "perl"; readonly perl: "d" | "s" | "w"; readonly negated: boolean; readonly u: boolean }
  | { readonly kind: "prop"; readonly name: string; readonly negated: boolean }
  | { readonly kind: "posix"; readonly name: string; readonly negated: boolean }
  | { readonly kind: "set"; readonly set: ClassSet }

export function hasNewline(node: Node): boolean {
  switch (node.type) {
    case "lit":
      return node.cp === 10
    case "class":
      return (
        node.set.kind === "union" &&
        !node.set.negated &&
        node.set.items.some((item) => item.kind === "char" && item.cp === 10)
      )
    case "group":
    case "repeat":
      return hasNewline(node.node)
    case "concat":
    case "alt":
      return node.items.some(hasNewline)
    default:
      return false
  }
}

export function literalNode(text: string, ci: boolean): Node {
  return { type: "concat", items: Array.from(text, (ch) => ({ type: "lit", cp: ch.codePointAt(0)!, ci })) }
}

export const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\x09\\x20",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "\\x21-\\x7E",
  lower: "a-z",
  print: "\\x20-\\x7E",
  punct: "\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E",
  space: "\\x09-\\x0D\\x20",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
}
