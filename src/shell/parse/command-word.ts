/**
 * The command word of a simple command as the rules see it: the one place that decides what program a
 * command runs, however its name is spelled.
 *
 * 1. Quotes and escapes are removed and known expansions done (`words.ts`): `'rm'`, `"r"m`, `r\m`,
 *    `$'rm'` and `a=rm; $a` are all `rm`.
 * 2. A path names its last component: `/bin/rm`, `/usr/bin/rm`, `./rm` and `~/bin/rm` are `rm`.
 * 3. A word the shell completes only when the command runs is `computed`: an expansion the scan cannot
 *    know (`$CMD`, `$(echo rm)`, `` `echo rm` ``, `"$@"`, `"${arr[@]}"`, `rm$IFS`), a glob or brace
 *    expansion (`/bin/r?`, `/bin/r[m]`, `{rm,x}`), or text a wrapper fills in (`xargs -I X X …`).
 *    No rule can be matched against it.
 */
import { basename } from "node:path"
import type { Token } from "./frame.ts"
import { knownValue } from "./words.ts"

export type CommandWord =
  | {
      readonly kind: "literal"
      /** The word's value (quotes removed, expansions done): `/bin/rm`. */
      readonly name: string
      /** The program it names: `rm`. */
      readonly base: string
    }
  | {
      readonly kind: "computed"
      /** The word as written. */
      readonly source: string
      /** Why it is only known at run time, as a phrase: "is computed at run time (an expansion)". */
      readonly why: string
    }

/** Words that are test commands, not globs (`[ -f x ]` reached through a wrapper). */
const BRACKETS: ReadonlySet<string> = new Set(["[", "[["])

/** The command word of `token` (see the module comment). */
export function commandWord(token: Token): CommandWord {
  const name = knownValue(token.values)
  if (name === undefined) {
    return { kind: "computed", source: token.source, why: "is computed at run time (an expansion)" }
  }
  const value = token.values[0]!
  if (value.globAt < value.text.length && !BRACKETS.has(name)) {
    return {
      kind: "computed",
      source: token.source,
      why: "is computed at run time (a glob or brace pattern the shell expands)",
    }
  }
  return { kind: "literal", name, base: basename(name) || name }
}

/**
 * `token` with the text a wrapper fills in at run time (`xargs -I X`: each `X`) marked unknown from its
 * first occurrence, so a command word or script holding it counts as computed.
 */
export function withPlaceholder(token: Token, placeholder: string | undefined): Token {
  if (!placeholder) return token
  const values = token.values.map((value) => {
    const at = value.text.indexOf(placeholder)
    return at < 0 || at >= value.dynamicAt ? value : { ...value, dynamicAt: at }
  })
  return values.every((value, i) => value === token.values[i]) ? token : { source: token.source, values }
}
