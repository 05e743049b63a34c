// The globs a caller passes (`pattern` of glob, `include` of grep), matched against the path relative to the
// search root. Both backends filter with this same matcher, so they agree by construction. Matching is our
// own automaton (glob-match.ts), extglobs included, bounded by path length × glob size whatever the glob,
// so any number of wildcards is matched.
import { SearchError } from "./backend.ts"
import { compileGlob, normalizeGlob } from "./glob-match.ts"

export { compileGlob, normalizeGlob } from "./glob-match.ts"

/**
 * Tests a file by its directory (relative to the search root, `/`-separated, "" for the root) and its
 * name; the path is only built for globs that need it.
 */
export type GlobTest = (dir: string, name: string) => boolean

/** The longest glob compiled (picomatch's own bound, its `maxLength`), held to on every path. */
export const MAX_GLOB_LENGTH = 65_536

/**
 * Why `glob` is refused, undefined when it is not: longer than any path it could be matched against,
 * with brace ranges standing for too many values, or with a `!(…)` group too complex to match (the last
 * two found by compiling it).
 */
export function globTooLong(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_LENGTH)
    return `A glob of ${glob.length.toLocaleString("en-US")} characters is longer than the ${MAX_GLOB_LENGTH.toLocaleString("en-US")} a glob may have (a path holds at most 4,096 bytes), so nothing was searched. Use a shorter glob.`
  try {
    compileGlob(glob)
    return undefined
  } catch (error) {
    if (error instanceof SearchError) return error.message
    throw error
  }
}

/**
 * A matcher for any of `patterns`; undefined when there is none (every file matches). A glob that
 * `globTooLong` refuses is a `SearchError` (found here by compiling it once).
 * A glob without `/` (or one starting with `**` + `/` and no other `/`) matches the file name at any
 * depth, as ripgrep's `--glob` does; any other glob matches the whole relative path. A leading `./` is
 * dropped; `[!a]` is a negated class, as in a shell.
 */
export function globMatcher(patterns: readonly string[] | undefined): GlobTest | undefined {
  const list = (patterns ?? []).map(normalizeGlob).filter((pattern) => pattern !== "")
  for (const pattern of list)
    if (pattern.length > MAX_GLOB_LENGTH) throw new SearchError(globTooLong(pattern)!)
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
