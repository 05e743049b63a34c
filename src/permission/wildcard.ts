/**
 * opencode's wildcard: `*` is any run of characters (crossing `/` and newlines), `?` exactly one,
 * a trailing ` *` also matches the bare command (`ls *` matches `ls`), everything else is literal,
 * and the whole input must match.
 */
export interface MatchOptions {
  /** Fold `\` to `/` in both sides: for path patterns only, never for shell commands. */
  readonly paths?: boolean
  /** Case-insensitive matching: on by default only on Windows. */
  readonly ignoreCase?: boolean
}

const cache = new Map<string, RegExp>()

export function match(input: string, pattern: string, options: MatchOptions = {}): boolean {
  const paths = options.paths ?? false
  const ignoreCase = options.ignoreCase ?? process.platform === "win32"
  if (pattern === "*") return true
  const subject = paths ? input.replaceAll("\\", "/") : input
  return compile(paths ? pattern.replaceAll("\\", "/") : pattern, ignoreCase).test(subject)
}

function compile(pattern: string, ignoreCase: boolean): RegExp {
  const key = `${ignoreCase ? "i" : "s"}:${pattern}`
  let regex = cache.get(key)
  if (!regex) {
    const bareCommand = pattern.endsWith(" *")
    const body = bareCommand ? pattern.slice(0, -2) : pattern
    let source = ""
    for (const char of body) {
      if (char === "*") source += ".*"
      else if (char === "?") source += "."
      else source += char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")
    }
    if (bareCommand) source += "( .*)?"
    regex = new RegExp(`^${source}$`, ignoreCase ? "si" : "s")
    if (cache.size > 10_000) cache.clear()
    cache.set(key, regex)
  }
  return regex
}
