/**
 * A command's "always" pattern (its arity prefix, through wrappers, plus ` *`) and its plain spelling
 * (`/bin/rm -rf x` as `rm -rf x`).
 */
import { prefixLength } from "./arity.ts"
import type { CommandView, Token } from "./frame.ts"
import { type Inner, unwrap } from "./wrappers.ts"

/** The "always" pattern: the arity prefix (through wrappers) plus ` *`, else the exact text. */
export function alwaysOf(command: CommandView, words: readonly string[], inners: readonly Inner[]): string {
  const texts = [...command.assignments, ...prefixTexts(command.tokens, words, inners)]
  const kept: string[] = []
  for (const text of texts) {
    if (/[*?]/.test(text)) break
    kept.push(text)
  }
  const prefix = kept.join(" ")
  if (kept.length === 0 || !(command.text === prefix || command.text.startsWith(`${prefix} `)))
    return command.text
  return `${prefix} *`
}

/**
 * The source texts of a command's "always" prefix: through exec wrappers (`sudo -u x`, `timeout 5`),
 * then the arity prefix of what they run.
 */
function prefixTexts(
  tokens: readonly Token[],
  words: readonly string[],
  inners: readonly Inner[] = unwrap(words),
): string[] {
  const inner = inners.find((entry) => entry.kind === "exec" && entry.end === words.length)
  if (inner && inner.kind === "exec" && !inner.via.startsWith("find") && !inner.via.startsWith("fd")) {
    return [
      ...tokens.slice(0, inner.start).map((token) => token.source),
      ...prefixTexts(tokens.slice(inner.start), words.slice(inner.start)),
    ]
  }
  return tokens.slice(0, prefixLength(words)).map((token) => token.source)
}

/**
 * The command with its name (basename, quotes and escapes removed) and subcommands spelled plainly and its
 * prefix assignments dropped, when that differs from how it is written. Only plain words are unquoted, and never into wildcard characters,
 * which would make a pattern that means something else.
 */
export function plainSpelling(
  command: CommandView,
  words: readonly string[],
  base: string | undefined,
  always: string,
) {
  if (base === undefined) return undefined
  const count = prefixLength(words)
  if (!SIMPLE_WORD.test(base)) return undefined
  // Subcommands are unquoted only when that cannot change their meaning; otherwise kept as written.
  const values = [
    base,
    ...words
      .slice(1, count)
      .map((word, i) => (SIMPLE_WORD.test(word) ? word : command.tokens[i + 1]!.source)),
  ]
  if (values.some((value) => /[*?]/.test(value))) return undefined
  const lead = [...command.assignments, ...command.tokens.slice(0, count).map((token) => token.source)].join(
    " ",
  )
  // Prefix assignments go: `FOO=1 rm x` runs `rm`, and a rule about `rm` must see it as `rm x`.
  const plainLead = values.join(" ")
  if (plainLead === lead || !command.text.startsWith(lead)) return undefined
  const text = plainLead + command.text.slice(lead.length)
  return { text, always: always.startsWith(`${lead} `) ? plainLead + always.slice(lead.length) : text }
}

/** A word that means the same quoted or not. */
const SIMPLE_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/
