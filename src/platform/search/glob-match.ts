// One glob compiled for matching paths relative to a search root. Every glob is matched by our own
// automaton (glob-parse.ts → glob-nfa.ts → glob-automaton.ts), extglobs included, in time bounded by path
// length × NFA size whatever the glob: no backtracking regular expression ever runs a caller's glob.
import { SearchError } from "./backend.ts"
import { GlobAutomaton } from "./glob-automaton.ts"
import { CharSet } from "./glob-charset.ts"
import { MAX_RANGE_VALUES, parseGlob } from "./glob-parse.ts"

export interface GlobProgram {
  /** Whether `path` (relative, `/`-separated) matches. */
  matches(path: string): boolean
  /**
   * Whether `dir` + `/` + `name` matches (`dir` "" for the root). The work on `dir` is remembered, so the
   * files of one directory, tested one after another, cost only their names.
   */
  matchesIn(dir: string, name: string): boolean
  /** The automaton (for tests: its size and steps). */
  readonly automaton: GlobAutomaton
}

/** The glob as matched: trimmed, `./` dropped, shell-style `[!` as `[^`. */
export function normalizeGlob(pattern: string): string {
  let glob = pattern.trim()
  while (glob.startsWith("./")) glob = glob.slice(2)
  return glob.replace(/(^|[^\\])\[!/g, "$1[^")
}

/**
 * Compiles `glob` (normalized here). It matches as picomatch did with `dot: true`: hidden files are
 * matched by `*`, and the path that is the glob's own text always matches (picomatch compared the two
 * before anything else, which lets `app/[id]/page.tsx` name its own file). A glob that cannot be matched
 * within the bounds (brace ranges of too many values, a `!(…)` too complex) is a `SearchError` saying
 * what to write instead; `globTooLong` (glob.ts) also refuses one too long to compile.
 */
export function compileGlob(glob: string): GlobProgram {
  const source = normalizeGlob(glob)
  const parsed = parseGlob(source)
  if (parsed.rangeValues > MAX_RANGE_VALUES)
    throw new SearchError(
      `The glob's brace ranges (such as {1..100}) stand for ${parsed.rangeValues.toLocaleString("en-US")} values; at most ${MAX_RANGE_VALUES.toLocaleString("en-US")} are matched, so nothing was searched. Use a wildcard or a character class instead, e.g. "log-[0-9]*.txt".`,
    )
  // picomatch's regular expression for such a glob failed to compile, negated or not: no path matched.
  const automaton = new GlobAutomaton(
    parsed.matchesNothing ? [{ op: "unit", set: new CharSet() }] : parsed.ops,
  )
  const negated = parsed.negated && !parsed.matchesNothing
  const slash = source.lastIndexOf("/")
  const sourceDir = slash < 0 ? undefined : source.slice(0, slash)
  const sourceName = source.slice(slash + 1)
  let lastDir: string | undefined
  let lastEpoch = automaton.epoch
  let afterDir = automaton.start
  const matches = (path: string) =>
    path !== "" && (path === source || automaton.accepts(automaton.run(automaton.start, path)) !== negated)
  return {
    matches,
    matchesIn(dir, name) {
      if (dir === "") return matches(name)
      if (dir === sourceDir && name === sourceName) return true
      if (dir !== lastDir || automaton.epoch !== lastEpoch) {
        afterDir = automaton.step(automaton.run(automaton.start, dir), 0x2f)
        lastDir = dir
        lastEpoch = automaton.epoch
      }
      return automaton.accepts(automaton.run(afterDir, name)) !== negated
    },
    automaton,
  }
}
