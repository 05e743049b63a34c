// The program a glob becomes (glob-parse.ts reads globs into it, ignore-program.ts ignore files' globs),
// and the NFA (glob-nfa.ts) is built from: a flat list of ops, groups bracketed by open / or / close.
import type { CharSet } from "./glob-charset.ts"

export type GlobOp =
  /** One code unit of `set`. */
  | { readonly op: "unit"; readonly set: CharSet }
  /**
   * `*`: any run of units without `/`. `ahead`: picomatch also required some character after this point
   * (its `(?=.)` on a lone `*` opening a segment), which only tells when the path may end here (`end`).
   */
  | { readonly op: "star"; readonly ahead?: boolean }
  /** A globstar's reach: any run of units, `/` included. */
  | { readonly op: "any" }
  /** Only where the path ends: what follows must then match nothing (picomatch's `$` in `/**` + `/`). */
  | { readonly op: "end" }
  /**
   * A group of alternatives: `open`, the first, `or`, the next, …, `close`. `repeat` (extglobs) says how
   * the group matches: `?` zero or one time, `+` one or more, `*` zero or more, `!` any text of its path
   * segment that no alternative matches; without it, once.
   */
  | { readonly op: "open"; readonly repeat?: GroupRepeat }
  | { readonly op: "or" }
  | { readonly op: "close" }

/** How an extglob's pattern list repeats: `?(…)`, `+(…)`, `*(…)`, `!(…)`. */
export type GroupRepeat = "?" | "+" | "*" | "!"
