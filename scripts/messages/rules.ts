// The error-message convention (ARCHITECTURE.md, "Error messages") as checks on one message's text:
// sentence case, a final period, and, for an error a model or user can act on, what to do about it.
// Pure functions over the text ./scan.ts renders (holes as `{expression}`).

/** Sites whose messages are internal invariants: sentence case and a period, no remedy asked. */
const INVARIANT_SITES = new Set(["Error", "TypeError", "RangeError", "SyntaxError"])

/**
 * A remedy is a clause that starts with one of these verbs (or "Did you mean", "Usage:"): after the start,
 * a hole (another text's end), a sentence's end, a colon, a semicolon, a dash, "or"/"then", or an opening parenthesis. A message that
 * states what is required ("must be", "needs", "expected", "takes", "at most") says what to do too.
 */
const REMEDY_VERBS = [
  "add|answer|ask|bind|build|call|change|check|choose|configure|convert|create|declare|define|delete|drop",
  "edit|export|fix|free|give|import|increase|install|keep|leave|list|lower|make|match|move|name|narrow",
  "omit|open|pass|pick|point|provide|put|quote|raise|re-read|read|remove|rename|reopen|reply|restart",
  "retry|return|run|say|see|select|send|set|split|start|stop|try|update|use|wait|write",
].join("|")
const REMEDY = new RegExp(
  [
    `(^|[.:;!?(—]\\s*|\\b(or|then|and)\\s+)(${REMEDY_VERBS})\\b`,
    `\\}\\s+(${REMEDY_VERBS})\\b`,
    "did you mean|usage:",
    "\\b(must|needs?|expected|expects|takes|accepts|at most|at least|only apply|goes with|go alone)\\b",
    "\\{[^}]*(hint|remedy|suggest|CHOICES|closest|problem)[^}]*\\}",
  ].join("|"),
  "i",
)

/** A hole at the end that stands for another error's text or a name: neither ends a sentence. */
const UNFINISHED_TAIL =
  /\{[^}]*(message|messageOf|\berror\b|path|file|dir|root|url|href|spec|id|name)[^}]*\}$/i

export type Problem = "lower-case" | "no-period" | "no-remedy"

/**
 * What `text` breaks of the convention; `site` is the class constructed, `fail` or `data`. `codeWords`
 * are lower-case words that name code (the built-in tools' names, `toolbelt`): a message may start so.
 */
export function problems(site: string, text: string, codeWords: ReadonlySet<string> = new Set()): Problem[] {
  const found: Problem[] = []
  if (startsLowerCase(text, codeWords)) found.push("lower-case")
  if (!endsSentence(text)) found.push("no-period")
  if (!INVARIANT_SITES.has(site) && !REMEDY.test(text)) found.push("no-remedy")
  return found
}

/** Whether the text starts with a lower-case word that is not code (an identifier, a flag, a key). */
export function startsLowerCase(text: string, codeWords: ReadonlySet<string> = new Set()): boolean {
  const word = /^[^\s:,;]*/.exec(text.trimStart())![0]
  if (!/^[a-z]/.test(word)) return false
  return !isCode(word) && !codeWords.has(word)
}

/** A word that names code: it has punctuation or digits inside, or an inner capital (camelCase). */
function isCode(word: string): boolean {
  return /[_./\-()<>{}[\]$=@"'`\d]/.test(word) || /[a-z][A-Z]/.test(word)
}

/**
 * Whether the text ends a sentence: a period, "?" or "!" (a closing quote or parenthesis may follow),
 * or a hole that is itself a sentence composed elsewhere (not a name, not another error's text).
 */
export function endsSentence(text: string): boolean {
  const end = text.trimEnd()
  if (/[.?!]["'`)\]]*$/.test(end)) return true
  if (/\{asSentence\([^{}]*(\{[^{}]*\}[^{}]*)*\)\}$/.test(end)) return true
  return /\}$/.test(end) && !UNFINISHED_TAIL.test(end)
}
