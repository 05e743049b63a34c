// The globs a caller passes (`pattern` of glob, `include` of grep), matched against the path relative to the
// search root. Both backends filter with this same matcher, so they agree by construction. Matching is our
// own automaton (glob-match.ts), bounded by path length × glob length whatever the glob, so any number of
// wildcards is matched; only globs with a parenthesised group or `|` keep picomatch and a wildcard bound.
import { SearchError } from "./backend.ts"
import { compileGlob, normalizeGlob, usesGroups } from "./glob-match.ts"
import { MAX_RANGE_VALUES, parseGlob } from "./glob-parse.ts"

export { compileGlob, normalizeGlob } from "./glob-match.ts"

/**
 * Tests a file by its directory (relative to the search root, `/`-separated, "" for the root) and its
 * name; the path is only built for globs that need it.
 */
export type GlobTest = (dir: string, name: string) => boolean

/** The longest glob compiled (picomatch's own bound, its `maxLength`), held to on every path. */
export const MAX_GLOB_LENGTH = 65_536

/**
 * The most wildcards (`*`, and extglob groups such as `+(…)`) one path segment may hold in a glob that
 * picomatch matches (one with a parenthesised group or `|`, see `usesGroups`). Its regular expressions
 * backtrack: each further `*` between literals multiplies the work on a long name (measured on a
 * 200-character name: 3 wildcards 12 ms, 4 0.4 s, 5 15 s, 25 never finished), and one such match freezes
 * the whole process (an MCP server with it). Other globs have no such bound.
 */
export const MAX_SEGMENT_WILDCARDS = 3

/**
 * Why `glob` is refused, undefined when it is not: longer than any path it could be matched against, with
 * brace ranges standing for too many values, or (only with a group or `|`) with more wildcards in one path
 * segment than picomatch can match in bounded time.
 */
export function globTooLong(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_LENGTH)
    return `A glob of ${glob.length.toLocaleString("en-US")} characters is longer than the ${MAX_GLOB_LENGTH.toLocaleString("en-US")} a glob may have (a path holds at most 4,096 bytes), so nothing was searched. Use a shorter glob.`
  if (usesGroups(glob)) return groupsTooWild(glob)
  const values = parseGlob(normalizeGlob(glob)).rangeValues
  if (values > MAX_RANGE_VALUES)
    return `The glob's brace ranges (such as {1..100}) stand for ${values.toLocaleString("en-US")} values; at most ${MAX_RANGE_VALUES.toLocaleString("en-US")} are matched, so nothing was searched. Use a wildcard or a character class instead, e.g. "log-[0-9]*.txt".`
  return undefined
}

/** Why a glob that picomatch matches (it has a group or `|`) is refused: too many wildcards in one segment. */
function groupsTooWild(glob: string): string | undefined {
  for (const segment of glob.split("/")) {
    if (segment === "**") continue
    // `**` inside a segment matches like `*`; an extglob group (`*(`, `+(`, `?(`, `@(`, `!(`) repeats.
    const wildcards = (segment.match(/\*+|[+?@!]\(/g) ?? []).length
    if (wildcards > MAX_SEGMENT_WILDCARDS)
      return `The path segment "${segment.length > 80 ? `${segment.slice(0, 80)}…` : segment}" has ${wildcards} wildcards, in a glob with a group in parentheses or a "|"; such globs are matched by regular expressions that backtrack, so at most ${MAX_SEGMENT_WILDCARDS} wildcards per segment are matched in them (more can take minutes on one long file name), and nothing was searched. Write the alternatives with braces instead ("{a,b}" rather than "@(a|b)"), which have no wildcard limit, or use fewer wildcards.`
  }
  return undefined
}

/**
 * A matcher for any of `patterns`; undefined when there is none (every file matches). A glob that
 * `globTooLong` refuses is a `SearchError`.
 * A glob without `/` (or one starting with `**` + `/` and no other `/`) matches the file name at any
 * depth, as ripgrep's `--glob` does; any other glob matches the whole relative path. A leading `./` is
 * dropped; `[!a]` is a negated class, as in a shell.
 */
export function globMatcher(patterns: readonly string[] | undefined): GlobTest | undefined {
  const list = (patterns ?? []).map(normalizeGlob).filter((pattern) => pattern !== "")
  for (const pattern of list) {
    const tooLong = globTooLong(pattern)
    if (tooLong) throw new SearchError(tooLong)
  }
  if (list.length === 0) return undefined
  const tests = list.map(compileOne)
  if (tests.length === 1) return tests[0]
  return (dir, name) => tests.some((test) => test(dir, name))
}

/** The name glob when `pattern` only looks at file names (`*.ts`, `**` + `/Kconfig`), else undefined. */
export function nameGlob(pattern: string): string | undefined {
  const glob = normalizeGlob(pattern)
  const rest = glob.startsWith("**/") ? glob.slice(3) : glob
  return rest !== "" && !rest.includes("/") && rest !== "**" ? rest : undefined
}

function compileOne(glob: string): GlobTest {
  const name = nameGlob(glob)
  if (name !== undefined) {
    // Fast paths for the commonest shapes: a literal name, and `*` + a literal suffix.
    if (!/[*?[\]{}()!+@\\]/.test(name)) return (_dir, file) => file === name
    if (name.startsWith("*") && !/[*?[\]{}()!+@\\]/.test(name.slice(1))) {
      const suffix = name.slice(1)
      return (_dir, file) => file.endsWith(suffix)
    }
    const program = compileGlob(name)
    return (_dir, file) => program.matches(file)
  }
  const program = compileGlob(glob)
  return (dir, file) => program.matchesIn(dir, file)
}
