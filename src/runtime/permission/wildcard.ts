/**
 * opencode's wildcard: `*` is any run of characters (crossing `/` and newlines), `?` exactly one,
 * a trailing ` *` also matches the bare command (`ls *` matches `ls`), everything else is literal,
 * and the whole input must match.
 *
 * Unlike opencode, backslashes are folded to `/` only for path patterns (`{paths: true}`), never for
 * shell commands, where a backslash means something. No pattern becomes a regular expression: a rule's
 * wildcards against a model's long command must not backtrack (see `starMatcher`).
 */
export interface MatchOptions {
  /** Fold `\` to `/` in both sides: for path patterns only, never for shell commands. */
  readonly paths?: boolean
  /** Case-insensitive matching: on by default only on Windows. */
  readonly ignoreCase?: boolean
}

/** A compiled pattern: tests one input. */
export type Matcher = (input: string) => boolean

const IGNORE_CASE_DEFAULT = process.platform === "win32"
const cache = new Map<string, Matcher>()
const CACHE_LIMIT = 10_000

/** Whether `input` matches `pattern` as a whole. */
export function match(input: string, pattern: string, options: MatchOptions = {}): boolean {
  if (pattern === "*") return true
  return compile(pattern, options)(input)
}

/** The matcher for one pattern (cached). */
export function compile(pattern: string, options: MatchOptions = {}): Matcher {
  const paths = options.paths ?? false
  const ignoreCase = options.ignoreCase ?? IGNORE_CASE_DEFAULT
  const key = `${paths ? "p" : "-"}${ignoreCase ? "i" : "-"}${pattern}`
  let matcher = cache.get(key)
  if (!matcher) {
    matcher = build(pattern, paths, ignoreCase)
    if (cache.size >= CACHE_LIMIT) cache.clear()
    cache.set(key, matcher)
  }
  return matcher
}

/**
 * The literal text every match must start with, as it is compared: folded (`\` to `/`) for paths, and
 * lower-cased when matching ignores case. With `ignoreCase` it stops at the first non-ASCII character, so
 * that a prefix index built from it never excludes an input the regex would accept.
 */
export function literalPrefix(pattern: string, options: MatchOptions = {}): string {
  const ignoreCase = options.ignoreCase ?? IGNORE_CASE_DEFAULT
  const body = pattern.endsWith(" *") ? pattern.slice(0, -2) : pattern
  let end = 0
  while (end < body.length) {
    const code = body.charCodeAt(end)
    if (code === 42 /* * */ || code === 63 /* ? */) break
    if (ignoreCase && code >= 128) break
    end++
  }
  let prefix = body.slice(0, end)
  if (options.paths) prefix = prefix.replaceAll("\\", "/")
  if (ignoreCase) prefix = lowerAscii(prefix)
  return prefix
}

/**
 * The literal text every match must end with (see `literalPrefix`). Empty when the pattern ends with a
 * wildcard, including a trailing ` *`.
 */
export function literalSuffix(pattern: string, options: MatchOptions = {}): string {
  const ignoreCase = options.ignoreCase ?? IGNORE_CASE_DEFAULT
  if (pattern.endsWith(" *")) return ""
  let start = pattern.length
  while (start > 0) {
    const code = pattern.charCodeAt(start - 1)
    if (code === 42 /* * */ || code === 63 /* ? */) break
    if (ignoreCase && code >= 128) break
    start--
  }
  let suffix = pattern.slice(start)
  if (options.paths) suffix = suffix.replaceAll("\\", "/")
  if (ignoreCase) suffix = lowerAscii(suffix)
  return suffix
}

/** Lower-cases A-Z only (what a non-unicode `i` regex treats as equal for ASCII). */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase())
}

function build(pattern: string, paths: boolean, ignoreCase: boolean): Matcher {
  const fold = (text: string) => {
    const slashed = paths ? text.replaceAll("\\", "/") : text
    return ignoreCase ? caseFold(slashed) : slashed
  }
  const folded = fold(pattern)
  if (folded === "*") return () => true
  if (folded.endsWith(" *")) {
    const bare = starMatcher(folded.slice(0, -2))
    const spaced = starMatcher(folded)
    return (input) => {
      const subject = fold(input)
      return bare(subject) || spaced(subject)
    }
  }
  const test = starMatcher(folded)
  return paths || ignoreCase ? (input) => test(fold(input)) : test
}

/**
 * A matcher that never backtracks: the pattern is its `*`-separated segments, each of fixed length (`?`
 * is one UTF-16 unit, as in a regular expression without the `u` flag). The first must start the input,
 * the last must end it, and the ones between must appear in order; taking each at its leftmost place
 * is optimal, so one pass decides. The cost is at most input × pattern length, whatever the pattern: a
 * regular expression of `.*`s took 22 s for `*a*?*a*b` against 500 characters.
 */
function starMatcher(pattern: string): Matcher {
  const segments = pattern.split("*")
  if (segments.length === 1) return (input) => input.length === pattern.length && fits(input, 0, pattern)
  const first = segments[0]!
  const last = segments.at(-1)!
  const middle = segments.slice(1, -1).filter((segment) => segment !== "")
  const fixed = first.length + last.length
  return (input) => {
    if (input.length < fixed || !fits(input, 0, first) || !fits(input, input.length - last.length, last)) {
      return false
    }
    let at = first.length
    const end = input.length - last.length
    for (const segment of middle) {
      const found = leftmost(input, segment, at, end)
      if (found < 0) return false
      at = found + segment.length
    }
    return true
  }
}

const QUESTION = 63

/** Whether `segment` (`?` for any one unit) matches `input` at `at`. */
function fits(input: string, at: number, segment: string): boolean {
  for (let index = 0; index < segment.length; index++) {
    const code = segment.charCodeAt(index)
    if (code !== QUESTION && input.charCodeAt(at + index) !== code) return false
  }
  return true
}

/** Where `segment` first matches in `input` between `from` and `end`; -1 when it does not. */
function leftmost(input: string, segment: string, from: number, end: number): number {
  if (!segment.includes("?")) {
    const found = input.indexOf(segment, from)
    return found >= 0 && found + segment.length <= end ? found : -1
  }
  for (let at = from; at + segment.length <= end; at++) if (fits(input, at, segment)) return at
  return -1
}

/**
 * Case folding as a regular expression's `i` flag without `u` does it (the spec's Canonicalize): each
 * UTF-16 unit to its upper case, unless that is more than one unit (ß) or turns a non-ASCII unit into
 * an ASCII one (ı).
 */
function caseFold(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, by design
  if (/^[\u0000-\u007f]*$/.test(text)) return text.toUpperCase()
  let out = ""
  for (let index = 0; index < text.length; index++) {
    const unit = text[index]!
    const upper = unit.toUpperCase()
    out += upper.length === 1 && (unit.charCodeAt(0) < 128 || upper.charCodeAt(0) >= 128) ? upper : unit
  }
  return out
}
