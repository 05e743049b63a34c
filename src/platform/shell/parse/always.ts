/**
 * A command's "always" pattern and its plain spelling (`/bin/rm -rf x` as `rm -rf x`).
 *
 * The "always" pattern is the arity prefix (through wrappers) plus ` *`: `git log *`, `sudo -u bob git pull *`.
 * A command whose arguments carry the risk (`risky-arguments.ts`: `rm`, `git push`, `chmod`…) saves its text
 * exactly instead, and only when that text can stand for what runs; a prefix that a wildcard character
 * would cut short (`python -c 'print(2*3)'` would give `python -c *`, any code) saves nothing.
 */
import { commandKey, prefixLength } from "./arity.ts"
import type { CommandView, Token } from "./frame.ts"
import { RISKY_ARGUMENTS } from "./risky-arguments.ts"
import { knownValue } from "./words.ts"
import { type Inner, unwrap } from "./wrappers.ts"

/**
 * The "always" pattern, or undefined when no pattern saves no more than this command.
 * 1. A command whose arguments carry the risk: its exact text (`fixedText`).
 * 2. Otherwise the arity prefix (through wrappers) plus ` *`; a prefix a wildcard character cuts short
 *    gives nothing.
 * 3. No prefix, or one the text does not start with: the exact text, when it holds no wildcard.
 */
export function alwaysOf(
  command: CommandView,
  words: readonly string[],
  inners: readonly Inner[],
): string | undefined {
  if (riskyArguments(words, inners) !== undefined) return fixedText(command, words, inners)
  const texts = [...command.assignments, ...prefixTexts(command.tokens, words, inners)]
  const kept: string[] = []
  for (const text of texts) {
    if (WILDCARD.test(text)) break
    kept.push(text)
  }
  if (kept.length > 0 && kept.length < texts.length) return undefined
  const prefix = kept.join(" ")
  if (kept.length === 0 || !(command.text === prefix || command.text.startsWith(`${prefix} `)))
    return exactPattern(command.text)
  return `${prefix} *`
}

/** `text` as a pattern that matches only itself; undefined when it holds `*` or `?`, which would be wildcards. */
export function exactPattern(text: string): string | undefined {
  return WILDCARD.test(text) ? undefined : text
}

/**
 * Why the arguments of the command `words` runs carry the risk (through exec wrappers: `sudo rm x` is
 * `rm`), or undefined when they do not. The longest entry of `RISKY_ARGUMENTS` its key starts with.
 */
export function riskyArguments(
  words: readonly string[],
  inners: readonly Inner[] = unwrap(words),
): string | undefined {
  const key = commandKey(innermost(words, inners).words)
  for (let end = key.length; end > 0; end--) {
    const why = RISKY_ARGUMENTS[key.slice(0, end).join(" ")]
    if (why !== undefined) return why
  }
  return undefined
}

/**
 * A risky command's text, when the text alone fixes what runs: no wildcard characters, no expansion (`$`,
 * backticks, or a word the scan cannot know), and no arguments handed over at run time (`xargs rm`,
 * `find … -exec rm {} ;`, `fd -x rm`, a `{}` inside a wrapper or script).
 */
function fixedText(
  command: CommandView,
  words: readonly string[],
  inners: readonly Inner[],
): string | undefined {
  if (/[*?$`]/.test(command.text)) return undefined
  if (command.feeds !== undefined || /^(find|fd) /.test(command.via ?? "")) return undefined
  // Inside a wrapper or a script, `{}` may be what an outer find, fd or xargs fills in at run time.
  if (command.via !== undefined && command.text.includes("{}")) return undefined
  if (!command.tokens.every((token) => knownValue(token.values) !== undefined)) return undefined
  if (innermost(words, inners).wrappers.some((inner) => inner.input || inner.placeholder !== undefined))
    return undefined
  return command.text
}

/** The command a wrapper chain runs in the end (`sudo timeout 5 rm x` → `rm x`), and the wrappers on the way. */
function innermost(
  words: readonly string[],
  inners: readonly Inner[],
): { words: readonly string[]; wrappers: Exec[] } {
  const inner = wrapped(words, inners)
  if (!inner) return { words, wrappers: [] }
  const deeper = words.slice(inner.start)
  const found = innermost(deeper, unwrap(deeper))
  return { words: found.words, wrappers: [inner, ...found.wrappers] }
}

/**
 * The exec wrapper whose command is the rest of the words, which the prefix follows into. Not find's or
 * fd's `-exec`: their commands run on what they find, and end before the words do.
 */
function wrapped(words: readonly string[], inners: readonly Inner[]): Exec | undefined {
  const inner = inners.find((entry) => entry.kind === "exec" && entry.end === words.length)
  if (inner?.kind !== "exec" || inner.via.startsWith("find") || inner.via.startsWith("fd")) return undefined
  return inner
}

type Exec = Extract<Inner, { kind: "exec" }>

const WILDCARD = /[*?]/

/**
 * The source texts of a command's "always" prefix: through exec wrappers (`sudo -u x`, `timeout 5`),
 * then the arity prefix of what they run.
 */
function prefixTexts(
  tokens: readonly Token[],
  words: readonly string[],
  inners: readonly Inner[] = unwrap(words),
): string[] {
  const inner = wrapped(words, inners)
  if (inner) {
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
  always: string | undefined,
): { text: string; always?: string } | undefined {
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
  if (always === undefined) return { text }
  return { text, always: always.startsWith(`${lead} `) ? plainLead + always.slice(lead.length) : text }
}

/** A word that means the same quoted or not. */
const SIMPLE_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/
