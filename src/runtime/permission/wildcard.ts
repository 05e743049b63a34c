/**
 * opencode's wildcard: `*` is any run of characters (crossing `/` and newlines), `?` exactly one,
 * a trailing ` *` also matches the bare command (`ls *` matches `ls`), everything else is literal,
 * and the whole input must match.
 *
 * Unlike opencode, backslashes are folded to `/` only for path patterns (`{paths: true}`), never for
 * shell commands, where a backslash means something. Patterns whose only wildcard is `*` are matched
 * without a regex (literal segments in order); the rest compile to an anchored dotall regex.
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
  const folded = paths ? pattern.replaceAll("\\", "/") : pattern
  const fold = paths ? (input: string) => input.replaceAll("\\", "/") : (input: string) => input
  if (folded === "*") return () => true
  if (!ignoreCase && !folded.includes("?")) {
    // Only `*`: match literal segments with startsWith/endsWith/indexOf, no regex.
    if (folded.endsWith(" *")) {
      const bare = starMatcher(folded.slice(0, -2))
      const spaced = starMatcher(folded)
      return (input) => {
        const subject = fold(input)
        return bare(subject) || spaced(subject)
      }
    }
    const test = starMatcher(folded)
    return paths ? (input) => test(fold(input)) : test
  }
  const regex = toRegExp(folded, ignoreCase)
  return paths ? (input) => regex.test(fold(input)) : (input) => regex.test(input)
}

/**
 * A matcher for a pattern whose only wildcard is `*`: the first segment must start the input, the last
 * must end it, and the ones between must appear in order (taking each at its leftmost place is optimal).
 */
function starMatcher(pattern: string): Matcher {
  const segments = pattern.split("*")
  if (segments.length === 1) return (input) => input === pattern
  const first = segments[0]!
  const last = segments.at(-1)!
  const middle = segments.slice(1, -1).filter((segment) => segment !== "")
  const fixed = first.length + last.length
  return (input) => {
    if (input.length < fixed || !input.startsWith(first) || !input.endsWith(last)) return false
    let at = first.length
    const end = input.length - last.length
    for (const segment of middle) {
      const found = input.indexOf(segment, at)
      if (found < 0 || found + segment.length > end) return false
      at = found + segment.length
    }
    return true
  }
}

function toRegExp(pattern: string, ignoreCase: boolean): RegExp {
  const bareCommand = pattern.endsWith(" *")
  const body = bareCommand ? pattern.slice(0, -2) : pattern
  let source = ""
  for (const char of body) {
    if (char === "*") source += ".*"
    else if (char === "?") source += "."
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
  }
  if (bareCommand) source += "( .*)?"
  return new RegExp(`^${source}$`, ignoreCase ? "si" : "s")
}
