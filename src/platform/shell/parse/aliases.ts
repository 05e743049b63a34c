/**
 * Names that stand for other text: `alias r=rm` (and `alias r='rm -f'`), and `hash -p /bin/rm r`, after
 * which `r x` runs `rm x`. The scan follows them so that a rule about `rm` applies to `r`.
 *
 * Bash expands aliases in a script only with `shopt -s expand_aliases`; the scan expands them always,
 * which can only find more commands, never fewer.
 */
import type { State, Token } from "./frame.ts"
import { knownValue } from "./words.ts"

const NAME = /^[^\s=/$`"'\\|&;<>()]+$/

/**
 * Applies an `alias`, `unalias` or `hash -p` command (`base`, with `tokens` name first) to `state`.
 * 1. `alias NAME=TEXT…`: each NAME now stands for TEXT (unknown when TEXT is not known before it runs).
 * 2. `unalias NAME…` / `unalias -a`: the names stand for themselves again.
 * 3. `hash -p PATH NAME`: NAME runs PATH.
 */
export function defineAliases(base: string, tokens: readonly Token[], state: State): void {
  const args = tokens.slice(1)
  if (base === "alias") {
    for (const token of args) {
      const value = knownValue(token.values)
      const shape = value ?? token.source
      const eq = shape.indexOf("=")
      if (eq <= 0) continue
      const name = shape.slice(0, eq)
      if (!NAME.test(name)) continue
      state.aliases.set(name, value === undefined ? undefined : value.slice(eq + 1))
    }
  } else if (base === "unalias") {
    for (const token of args) {
      const value = knownValue(token.values)
      if (value === "-a") state.aliases.clear()
      else if (value !== undefined) state.aliases.delete(value)
    }
  } else if (base === "hash") {
    const words = args.map((token) => knownValue(token.values))
    const flag = words.indexOf("-p")
    if (flag < 0) return
    const path = words[flag + 1]
    for (const name of words.slice(flag + 2)) {
      if (name !== undefined && NAME.test(name)) state.aliases.set(name, path)
    }
  }
}

/** Key of `State.aliases` meaning any name may now be an alias, with unknown text. */
export const ANY_ALIAS = "\u0000any"

/**
 * An assignment to bash's alias or command-hash tables (`BASH_ALIASES[r]=rm`, `BASH_CMDS[r]=/bin/rm`)
 * defines `r` as `alias`/`hash -p` would. One the scan cannot read (`BASH_ALIASES=(…)`, a computed key or
 * value) means any name may be an alias. Returns whether `target` was such a table.
 */
export function assignAliasTable(
  target: string,
  values: readonly string[] | undefined,
  state: State,
): boolean {
  const match = /^(BASH_ALIASES|BASH_CMDS)(?:\[(.*)\])?$/.exec(target)
  if (!match) return false
  const key = match[2]?.replace(/^(["'])(.*)\1$/, "$2")
  if (key !== undefined && NAME.test(key) && values?.length === 1) state.aliases.set(key, values[0])
  else state.aliases.set(ANY_ALIAS, undefined)
  return true
}

/** The commands `defineAliases` reads. */
export const ALIAS_COMMANDS: ReadonlySet<string> = new Set(["alias", "unalias", "hash"])
