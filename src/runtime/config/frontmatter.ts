// The YAML frontmatter of a Markdown file (SKILL.md, agent files): the `---` block at the top and the
// text after it. Import it only when such a file exists: the YAML parser costs ~20 ms to import.

import { parseDocument } from "yaml"

/** `---` on the first line (after a byte order mark), the YAML, `---` on a line of its own. */
const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n((?:[\s\S]*?\r?\n)?)---[ \t]*(?:\r?\n|$)/

/** The frontmatter's YAML text and the Markdown after it (trimmed); undefined without a `---` block. */
export function splitFrontmatter(text: string): { readonly yaml: string; readonly body: string } | undefined {
  const match = FRONTMATTER.exec(text)
  if (!match) return undefined
  return { yaml: match[1] ?? "", body: text.slice(match[0].length).trim() }
}

/** A top-level `key: value` line whose unquoted value holds `: ` (YAML reads that as a nested mapping). */
const PLAIN_WITH_COLON = /^([A-Za-z_][\w-]*):[ \t]+([^\s"'|>[{&*!#%@`].*:\s.*)$/gm

/**
 * The frontmatter's value. A top-level value written unquoted with `: ` inside (`description: Use it
 * when: ...`), which YAML refuses and many files have, is read as the text it was meant to be when
 * nothing else is wrong. Otherwise an error names the file's line and says how to fix it.
 */
export function parseFrontmatter(yaml: string): unknown {
  const document = parseDocument(yaml, { prettyErrors: false })
  const problem = document.errors[0]
  if (!problem) return document.toJS()
  const repaired = yaml.replace(
    PLAIN_WITH_COLON,
    (_line, key: string, value: string) => `${key}: ${JSON.stringify(value.trim())}`,
  )
  if (repaired !== yaml) {
    const second = parseDocument(repaired, { prettyErrors: false })
    if (second.errors.length === 0) return second.toJS()
  }
  // An error found at the very end (an unclosed bracket) belongs to the last line written.
  const at = Math.min(problem.pos[0], yaml.trimEnd().length)
  const line = yaml.slice(0, at).split("\n").length + 1
  throw new Error(
    `invalid YAML in the frontmatter at line ${line}: ${problem.message.split("\n")[0]}. Put a value that holds special characters in double quotes.`,
  )
}
