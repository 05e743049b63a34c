/** The escape-normalised matcher: oldString over-escaped, or the file's escapes resolved in oldString. */
import type { Candidate, MatchContext } from "./match-context.ts"
import { escapeRegExp, occurrences, windowsWhere } from "./match-search.ts"
import { splitLines, unescapeString } from "./normalise-text.ts"

// 6. Escape-normalised: oldString over-escaped (\n, \t, \" ... for real characters), or the file holds
// escapes that oldString has resolved.
export function* escapeNormalised(context: MatchContext): Generator<Candidate> {
  const unescaped = unescapeString(context.find)
  if (unescaped.trim() === "") return
  if (unescaped !== context.find) {
    // The model escaped what the file has as real characters: it escaped newString the same way.
    const adapt = unescapeString
    for (const at of occurrences(context.content, unescaped))
      yield { start: at, end: at + unescaped.length, adapt }
  }
  const want = splitLines(unescaped)
  const endsWithNewline = unescaped.length > 1 && unescaped.endsWith("\n")
  for (const i of windowsWhere(context, context.unescaped, want)) {
    const raw = context.lines.slice(i, i + want.length)
    if (raw.every((line, k) => line === want[k])) continue // no escapes: an occurrence, not this case
    yield {
      ...context.window(i, want.length, endsWithNewline),
      adapt: escapeLike(raw.join("\n")),
      describe: "matched the file's escaped text (\\\", \\t, ...) against oldString's unescaped text",
    }
  }
}

/**
 * For a span whose quotes (or dollar signs) are all backslash-escaped in the file: escapes the same
 * characters in newString, so replacing it keeps the file's escaping.
 */
function escapeLike(fileText: string): (newString: string) => string {
  const chars = ['"', "'", "`", "$"].filter((char) => {
    const all = fileText.split(char).length - 1
    const escaped = fileText.split(`\\${char}`).length - 1
    return escaped > 0 && escaped === all
  })
  return (newString) =>
    chars.reduce(
      (text, char) => text.replace(new RegExp(`(?<!\\\\)${escapeRegExp(char)}`, "g"), `\\${char}`),
      newString,
    )
}
