// The literals every match of a pattern tree contains (the fallback's prefilter looks for those first).
import type { ClassSet, Node } from "./regex-tree.ts"

/** A literal the prefilter looks for. `fold`: ASCII letters match in either case (`text` is lowercase). */
export interface Literal {
  readonly text: string
  readonly fold: boolean
}

interface LiteralInfo {
  /** Every string the node can match, when there are few; null otherwise. */
  readonly exact: Literal[] | null
  /** Every match contains one of these; null when unknown. */
  readonly required: Literal[] | null
  /** No assertion inside (a literal hit is then a match). */
  readonly pure: boolean
}

const MAX_SET = 16
const EMPTY: Literal = { text: "", fold: false }

export function literalInfo(node: Node): LiteralInfo {
  switch (node.type) {
    case "lit": {
      const lit = charLiteral(node.cp, node.ci)
      return { exact: lit ? [lit] : null, required: null, pure: true }
    }
    case "class": {
      const chars = smallClass(node.set)
      if (!chars) return { exact: null, required: null, pure: true }
      const lits = chars.map((cp) => charLiteral(cp, node.ci))
      if (lits.some((lit) => lit === null)) return { exact: null, required: null, pure: true }
      return { exact: dedupe(lits as Literal[]), required: null, pure: true }
    }
    case "any":
      return { exact: null, required: null, pure: true }
    case "assert":
      return { exact: [EMPTY], required: null, pure: false }
    case "group":
      return literalInfo(node.node)
    case "repeat": {
      const inner = literalInfo(node.node)
      if (node.min === 1 && node.max === 1) return inner
      if (node.min === 0 && node.max === 1 && inner.exact) {
        return { exact: dedupe([EMPTY, ...inner.exact]), required: null, pure: inner.pure }
      }
      return {
        exact: null,
        required: node.min >= 1 ? best([inner.exact, inner.required]) : null,
        pure: inner.pure,
      }
    }
    case "alt": {
      const infos = node.items.map(literalInfo)
      const pure = infos.every((info) => info.pure)
      const exact = infos.every((info) => info.exact) ? dedupe(infos.flatMap((info) => info.exact!)) : null
      const covers = infos.map((info) => best([info.exact, info.required]))
      const required = covers.every((cover) => cover) ? dedupe(covers.flatMap((cover) => cover!)) : null
      return { exact: exact && exact.length <= MAX_SET ? exact : null, required, pure }
    }
    case "concat": {
      const candidates: (Literal[] | null)[] = []
      let run: Literal[] | null = [EMPTY]
      let allExact = true
      let pure = true
      for (const item of node.items) {
        const info = literalInfo(item)
        pure &&= info.pure
        if (run && info.exact) {
          const product = cross(run, info.exact)
          if (product) {
            run = product
            continue
          }
          allExact = false
        }
        if (!info.exact) allExact = false
        candidates.push(run, info.required)
        run = info.exact
        if (!run) allExact = false
      }
      candidates.push(run)
      return { exact: allExact ? run : null, required: best(candidates), pure }
    }
  }
}

/** The literal for one character, or null when case folding makes it unsearchable as bytes. */
function charLiteral(cp: number, ci: boolean): Literal | null {
  const ch = String.fromCodePoint(cp)
  if (!ci) return { text: ch, fold: false }
  if (/[A-Za-z]/.test(ch)) {
    // K and S also fold to non-ASCII characters (KELVIN SIGN, LONG S): no byte-level search for them.
    return /[ksKS]/.test(ch) ? null : { text: ch.toLowerCase(), fold: true }
  }
  if (cp < 0x80) return { text: ch, fold: false }
  return ch.toLowerCase() === ch && ch.toUpperCase() === ch && !FOLDS_TO_ASCII.has(cp)
    ? { text: ch, fold: false }
    : null
}

// Non-ASCII characters whose simple case folding reaches ASCII letters.
const FOLDS_TO_ASCII = new Set([0x212a, 0x17f])

function smallClass(set: ClassSet): number[] | null {
  if (set.kind !== "union" || set.negated) return null
  const out: number[] = []
  for (const item of set.items) {
    if (item.kind === "char") out.push(item.cp)
    else if (item.kind === "range" && item.hi - item.lo < 4)
      for (let cp = item.lo; cp <= item.hi; cp++) out.push(cp)
    else return null
    if (out.length > 4) return null
  }
  return out
}

function cross(left: Literal[], right: Literal[]): Literal[] | null {
  if (left.length * right.length > MAX_SET) return null
  const out: Literal[] = []
  for (const a of left) {
    for (const b of right) {
      const fold = a.fold || b.fold
      out.push({ text: (fold ? asciiLower(a.text) : a.text) + (fold ? asciiLower(b.text) : b.text), fold })
    }
  }
  return dedupe(out)
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (ch) => ch.toLowerCase())
}

function dedupe(lits: Literal[]): Literal[] {
  const seen = new Map<string, Literal>()
  for (const lit of lits) {
    const key = `${lit.fold ? 1 : 0}${lit.text}`
    if (!seen.has(key)) seen.set(key, lit)
  }
  return [...seen.values()]
}

/** The most selective cover: longest shortest literal, then fewest literals; never one holding "". */
export function best(candidates: readonly (Literal[] | null)[]): Literal[] | null {
  let winner: Literal[] | null = null
  let winnerScore = -Infinity
  for (const candidate of candidates) {
    if (!candidate || candidate.length === 0 || candidate.length > MAX_SET) continue
    const shortest = Math.min(...candidate.map((lit) => Buffer.byteLength(lit.text)))
    if (shortest === 0) continue
    const score = Math.min(shortest, 8) * 100 - candidate.length - (candidate.some((lit) => lit.fold) ? 1 : 0)
    if (score > winnerScore) {
      winner = candidate
      winnerScore = score
    }
  }
  return winner
}
