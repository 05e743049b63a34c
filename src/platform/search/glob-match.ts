// One glob compiled for matching paths relative to a search root. Globs are matched by our own automaton
// (glob-parse.ts → glob-nfa.ts → glob-automaton.ts), in time bounded by path length × glob length whatever the glob,
// except those holding a parenthesised group or `|`, which picomatch still matches (see `usesGroups`).
import picomatch from "picomatch"
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
  /** The automaton, undefined when picomatch matches this glob (for tests: its size and steps). */
  readonly automaton: GlobAutomaton | undefined
}

/** The glob as matched: trimmed, `./` dropped, shell-style `[!` as `[^`. */
export function normalizeGlob(pattern: string): string {
  let glob = pattern.trim()
  while (glob.startsWith("./")) glob = glob.slice(2)
  return glob.replace(/(^|[^\\])\[!/g, "$1[^")
}

/**
 * Whether `glob` holds a parenthesised group or `|`, which picomatch read as regular-expression syntax:
 * extglobs (`+(a|b)`, `*(a)`, `?(a)`, `@(a)`, `!(a)`) and bare groups (`(a|b)`). Those globs stay with
 * picomatch, so they match exactly as before: its extglobs have rules of their own (`!(…)` is a negative
 * look-ahead, repeated groups it judges risky it rewrites to literal text) that an automaton would match
 * differently, and a look-ahead is no finite automaton at all. Its regular expressions backtrack, so
 * `globTooLong` still bounds the wildcards of these globs.
 */
export function usesGroups(glob: string): boolean {
  return /[()|]/.test(glob)
}

/**
 * Compiles `glob` (normalized here; `globTooLong` must have passed it). It matches as picomatch did with
 * `dot: true`: hidden files are matched by `*`, and the path that is the glob's own text always matches
 * (picomatch compared the two before anything else, which lets `app/[id]/page.tsx` name its own file).
 */
export function compileGlob(glob: string): GlobProgram {
  const source = normalizeGlob(glob)
  if (usesGroups(source)) {
    const test = picomatch(source, { dot: true })
    return {
      matches: (path) => test(path),
      matchesIn: (dir, name) => test(dir === "" ? name : `${dir}/${name}`),
      automaton: undefined,
    }
  }
  const parsed = parseGlob(source)
  if (parsed.rangeValues > MAX_RANGE_VALUES)
    throw new RangeError(`The glob's brace ranges stand for more than ${MAX_RANGE_VALUES} values`)
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
