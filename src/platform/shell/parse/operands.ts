import { toolName } from "./arity.ts"
import { FILE_COMMANDS, type FileSpec, type PathKind } from "./operand-table.ts"

/**
 * Path operands: which tokens of a command are paths, read from the table of file-like commands
 * (`operand-table.ts`), plus `find`, whose start points come before its expression.
 */

/** A path in a command: token `index`, starting at `offset` in its value (after `--file=`, `of=`, `@`). */
export interface PathOperand {
  readonly index: number
  readonly offset: number
  readonly kind: PathKind
}

/** Whether `name` (a command name, any path) is a file-like command. */
export function isFileCommand(name: string): boolean {
  return toolName(name) in FILE_COMMANDS
}

/**
 * The path operands of a command, from its words (name first; known values, or source text for the
 * parts the scan cannot know). Empty for a command that is not file-like.
 */
export function pathOperands(words: readonly string[]): PathOperand[] {
  if (words.length === 0) return []
  const name = toolName(words[0]!)
  if (name === "find") return findStartPoints(words)
  const spec = FILE_COMMANDS[name]
  if (!spec) return []
  const result: PathOperand[] = []
  const flags = flagSets(spec)
  const patternGiven = flags.patterns.known.size > 0 && hasFlag(words, flags.patterns)
  let skip = patternGiven ? 0 : (spec.skip ?? 0)
  let options = true
  let operands = 0
  for (let i = 1; i < words.length; i++) {
    let word = words[i]!
    if (i === 1 && spec.bundled && /^[A-Za-z]+$/.test(word)) word = `-${word}`
    if (options && word === "--") {
      options = false
      continue
    }
    if (options && word.length > 1 && word.startsWith("-") && !(spec.optionsFirst && operands > 0)) {
      const flag = matchFlag(word, flags.values)
      if (!flag) continue
      const index = flag.inline < 0 ? i + 1 : i
      const offset = Math.max(0, flag.inline)
      if (flag.inline < 0) i++
      if (index >= words.length) continue
      const kind = spec.paths?.[flag.name]
      if (kind) result.push({ index, offset, kind })
      else if (spec.at?.includes(flag.name) && words[index]!.startsWith("@", offset)) {
        result.push({ index, offset: offset + 1, kind: "file" })
      }
      continue
    }
    if (spec.optionsFirst) {
      operands++
      continue
    }
    const assigned = spec.assign?.find((key) => word.startsWith(`${key}=`))
    if (assigned) {
      result.push({ index: i, offset: assigned.length + 1, kind: "file" })
      continue
    }
    if (spec.noOperands) continue
    if (word === "-") continue
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue
    if (spec.remote && /^[^/]*:/.test(word)) continue
    if (spec.mode && operands === 0 && !hasFlag(words, flags.reference) && isMode(word)) {
      operands++
      continue
    }
    if (skip > 0) {
      skip--
      operands++
      continue
    }
    if (spec.maxOperands !== undefined && operands >= spec.maxOperands) continue
    result.push({ index: i, offset: 0, kind: spec.kind ?? "auto" })
    operands++
  }
  return result
}

/** The flags `matchFlag` looks for in a word, and the command's short flags that end a cluster. */
interface ValueFlags {
  readonly known: ReadonlySet<string>
  /** Short flags whose value, if any, is the rest of their cluster (`sed -i.bak`). */
  readonly optional: ReadonlySet<string>
}

/** One command's flags, as sets the scan looks words up in. */
interface FlagSets {
  /** Every flag that takes a value. */
  readonly values: ValueFlags
  /** Flags that mean there is no pattern operand. */
  readonly patterns: ValueFlags
  /** `--reference`: given it, chmod's first operand is a path, not a mode. */
  readonly reference: ValueFlags
}

const flagSetCache = new WeakMap<FileSpec, FlagSets>()

function flagSets(spec: FileSpec): FlagSets {
  let sets = flagSetCache.get(spec)
  if (!sets) {
    const optional: ReadonlySet<string> = new Set(spec.optional)
    const known = [
      ...(spec.value ?? []),
      ...Object.keys(spec.paths ?? {}),
      ...(spec.pattern ?? []),
      ...(spec.at ?? []),
    ]
    sets = {
      values: { known: new Set(known), optional },
      patterns: { known: new Set([...(spec.pattern ?? []), ...(spec.patternless ?? [])]), optional },
      reference: { known: new Set(["--reference"]), optional },
    }
    flagSetCache.set(spec, sets)
  }
  return sets
}

/**
 * The flag in `word` that takes a value: `--file=x` / `-chdir=x` (inline, value after `=`), `--file`
 * (value is the next token), `-n5` / `-fx` (inline, rest of the cluster), `-czf` (next token).
 * `inline` is the value's offset in `word`, or -1 when the value is the next token. A flag in `optional`
 * takes the rest of its cluster as its value, so the scan stops there.
 */
function matchFlag(
  word: string,
  { known, optional }: ValueFlags,
): { name: string; inline: number } | undefined {
  const eq = word.indexOf("=")
  if (eq > 0 && known.has(word.slice(0, eq))) return { name: word.slice(0, eq), inline: eq + 1 }
  if (word.startsWith("--")) return known.has(word) ? { name: word, inline: -1 } : undefined
  if (known.has(word)) return { name: word, inline: -1 }
  for (let at = 1; at < word.length; at++) {
    const name = `-${word[at]}`
    if (known.has(name)) return { name, inline: at + 1 < word.length ? at + 1 : -1 }
    if (optional.has(name)) return undefined
  }
  return undefined
}

/** Whether any word before `--` is one of `flags.known` (alone, with `=value`, or in a short cluster). */
function hasFlag(words: readonly string[], flags: ValueFlags): boolean {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    if (word === "--") return false
    if (word.length > 1 && word.startsWith("-") && matchFlag(word, flags)) return true
  }
  return false
}

/** A chmod mode: octal, or symbolic like `u+x`, `go-w`, `a=r,u+w`, `+x`, `-w`. */
function isMode(word: string): boolean {
  return (
    /^[0-7]{1,4}$/.test(word) ||
    /^([ugoa]*[-+=]([rwxXst]*|[ugo]))+(,([ugoa]*[-+=]([rwxXst]*|[ugo]))+)*$/.test(word)
  )
}

/** find's start points: the operands before the expression (after the `-H`/`-L`/`-P`/`-D x`/`-O1` options). */
function findStartPoints(words: readonly string[]): PathOperand[] {
  const result: PathOperand[] = []
  let i = 1
  while (i < words.length) {
    const word = words[i]!
    if (word === "-H" || word === "-L" || word === "-P" || /^-O[0-9]*$/.test(word)) i++
    else if (word === "-D") i += 2
    else break
  }
  for (; i < words.length; i++) {
    const word = words[i]!
    if (word.startsWith("-") || word === "(" || word === "!" || word === ")" || word === ",") break
    result.push({ index: i, offset: 0, kind: "dir" })
  }
  return result
}
