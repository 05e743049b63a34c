// ripgrep's regex syntax (Rust `regex`) translated to a JavaScript RegExp with the same line-by-line
// semantics, plus the literals every match must contain (the fallback looks for those first).
// Parsing is in regex-parser.ts, the translation in regex-to-javascript.ts, the literals in regex-literals.ts.
import { SearchPatternError } from "./backend.ts"
import { best, type Literal, literalInfo } from "./regex-literals.ts"
import { Parser } from "./regex-parser.ts"
import { allCaseless, emit, hasCased } from "./regex-to-javascript.ts"
import { hasNewline, literalNode } from "./regex-tree.ts"

export type { Literal } from "./regex-literals.ts"

export interface CompiledPattern {
  /** JavaScript source for the `v` flag; never matches across a `\n`; `^`/`$` are line anchors. */
  readonly source: string
  /** The same, valid only on pure-ASCII text (native `\w`, `\b`, ...: faster). */
  readonly asciiSource: string
  /** `v`, plus `i` when the whole pattern is case-insensitive. */
  readonly flags: string
  /** Every match contains one of these; null when no useful literal was found. */
  readonly literals: readonly Literal[] | null
  /** A line containing one of `literals` always matches: the regex need not confirm it. */
  readonly literalIsMatch: boolean
}

export interface PatternOptions {
  readonly fixedStrings?: boolean
  readonly ignoreCase?: boolean
}

/**
 * Compiles a ripgrep pattern for the fallback.
 * 1. Parse the Rust `regex` syntax into a tree (errors name the problem as ripgrep does; look-around
 *    and backreferences are rejected, as ripgrep rejects them).
 * 2. Emit JavaScript (`v` flag): Unicode-aware `\w`, `\d`, `\s`, `\b` as ripgrep has them, `.` and negated
 *    classes never matching `\n`, `^`/`$` as line anchors, inline flags as modifier groups, POSIX classes
 *    as ranges, `\x{...}` as `\u{...}`.
 * 3. Extract the literals every match contains (case-folded where the pattern ignores case).
 */
export function compilePattern(pattern: string, options: PatternOptions = {}): CompiledPattern {
  const root = options.fixedStrings
    ? literalNode(pattern, options.ignoreCase ?? false)
    : new Parser(pattern, options.ignoreCase ?? false).parse()
  if (hasNewline(root)) {
    throw new SearchPatternError(pattern, 'the literal "\\n" is not allowed: grep matches one line at a time')
  }
  const caseless = allCaseless(root) && hasCased(root)
  const source = emit(root, { ascii: false, ci: caseless })
  const asciiSource = emit(root, { ascii: true, ci: caseless })
  const flags = caseless ? "iv" : "v"
  for (const src of [source, asciiSource]) {
    try {
      new RegExp(src, flags)
    } catch (error) {
      throw new SearchPatternError(pattern, `cannot be translated (${(error as Error).message})`)
    }
  }
  const info = literalInfo(root)
  const literals = best([info.exact, info.required])
  return {
    source,
    asciiSource,
    flags,
    literals,
    literalIsMatch: literals !== null && info.pure && info.exact !== null && literals === info.exact,
  }
}
