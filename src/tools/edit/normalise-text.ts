/**
 * The normalised forms of text that the edit matchers compare: split lines, collapsed whitespace,
 * unescaped text.
 */

/** Lines of a text; a final line break ends the last line instead of starting an empty one. */
export function splitLines(text: string): string[] {
  return (text.length > 1 && text.endsWith("\n") ? text.slice(0, -1) : text).split("\n")
}

/** Whitespace runs collapsed to one space, trimmed. Most lines need only the trim. */
export function collapseWhitespace(text: string): string {
  const trimmed = text.trim()
  return /\s\s|[^\S ]/.test(trimmed) ? trimmed.replace(/\s+/g, " ") : trimmed
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "'": "'",
  '"': '"',
  "`": "`",
  "\\": "\\",
  $: "$",
  "\n": "\n",
}

/**
 * Resolves the escapes models add when they over-escape code: a backslash before n, t, r, a quote, a
 * backtick, a backslash, a dollar sign or a line break. Other backslashes stay.
 */
export function unescapeString(text: string): string {
  return text.replace(/\\([ntr'"`\\$\n])/g, (_, char: string) => ESCAPES[char]!)
}

/** `unescapeString` for one line of a file: a backslash that ends the line escapes its line break. */
export function unescapeLine(line: string): string {
  if (!line.includes("\\")) return line
  const out = unescapeString(line)
  // An odd run of backslashes at the end leaves one unpaired: it escaped the line break, which unescapes
  // to the line break itself, so the backslash goes.
  let run = 0
  while (run < line.length && line[line.length - 1 - run] === "\\") run++
  return run % 2 === 1 ? out.slice(0, -1) : out
}
