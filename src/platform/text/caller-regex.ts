// A regular expression a caller (the model) wrote, compiled so that no text can hold the thread in it.
// V8 backtracks: `(a+)+$` against 60 characters takes longer than anyone waits, and the thread, the
// whole server with it, stops. V8 also has a linear-time engine for expressions without look-around or
// back-references; with `--enable-experimental-regexp-engine-on-excessive-backtracks` it switches to it
// once an expression has backtracked too much (50,000 times). So such an expression is refused here,
// the flag is set once, and what remains runs in bounded time whatever the text.
import { setFlagsFromString } from "node:v8"

/** Look-around (`(?=`, `(?!`, `(?<=`, `(?<!`) and back-references (`\1`, `\k<name>`), outside a class. */
const NOT_LINEAR = /\\[1-9]|\\k<|\(\?<?[=!]/

/** The flags the linear engine runs (measured on Node 24: not `i`, `u`, `v`, and `y`/`d` are not needed). */
const LINEAR_FLAGS = /^[gms]*$/

let flagSet = false

export class CallerRegexError extends Error {}

/**
 * Compiles `source` with `flags`. A `CallerRegexError` says why it cannot be used: not valid, or built
 * with look-around or a back-reference, which only the backtracking engine runs.
 */
export function compileCallerRegex(source: string, flags = ""): RegExp {
  if (!LINEAR_FLAGS.test(flags)) throw new Error(`The flags "${flags}" are not run by the linear engine.`)
  let regex: RegExp
  try {
    regex = new RegExp(source, flags)
  } catch (error) {
    throw new CallerRegexError(`it is not a valid regular expression: ${(error as Error).message}`)
  }
  if (NOT_LINEAR.test(withoutClasses(source))) {
    throw new CallerRegexError(
      "look-around ((?=…), (?!…), (?<=…), (?<!…)) and back-references (\\1, \\k<name>) are not allowed: they can take exponential time on some text. Match the text itself instead",
    )
  }
  if (!flagSet) {
    setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks")
    flagSet = true
  }
  return regex
}

/** `source` with its character classes and escaped characters blanked, so `[(?=]` is not look-around. */
function withoutClasses(source: string): string {
  let out = ""
  let inClass = false
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!
    if (char === "\\") {
      // Only a back-reference's escape stays (`\1`, `\k<`): `\(` is a character, not a group.
      const next = source[index + 1] ?? ""
      out += !inClass && /[1-9k]/.test(next) ? `\\${next}` : "  "
      index++
    } else if (inClass) {
      if (char === "]") inClass = false
      out += " "
    } else {
      if (char === "[") inClass = true
      out += inClass ? " " : char
    }
  }
  return out
}
