/**
 * How an edit tells the model that its oldString did not match the file exactly, so it learns the
 * file's style (indentation, line endings, escaping, typography) for its next edit.
 */
import type { MatcherName } from "./match-context.ts"

/** Line numbers named at most; a replaceAll of hundreds of places names the first ones. */
const MAX_LINES = 10

/**
 * The sentence that tells the model how its strings differed from the file, or undefined when the
 * match was exact and nothing had to be reconciled.
 */
export function describeMatch(
  matcher: MatcherName,
  normalisation: string | undefined,
  lines: readonly number[],
): string | undefined {
  const shown = lines.length > MAX_LINES ? `${lines.slice(0, MAX_LINES).join(", ")}, ...` : lines.join(", ")
  const where = lines.length === 1 ? `line ${lines[0]}` : `lines ${shown}`
  if (matcher === "exact" || matcher === "multi-occurrence") {
    return normalisation ? `Note: ${normalisation}.` : undefined
  }
  const how = normalisation ?? `matched by the ${matcher} matcher`
  return (
    `Note: oldString did not match the file exactly (${matcher} matcher, at ${where}): ${how}. ` +
    "Copy oldString from the file as it is to match exactly next time."
  )
}
