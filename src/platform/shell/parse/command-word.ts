/**
 * The command word of a simple command as the rules see it: the one place that decides what program a
 * command runs, however its name is spelled.
 *
 * 1. Quotes and escapes are removed and known expansions done (`words.ts`): `'rm'`, `"r"m`, `r\m`,
 *    `$'rm'` and `a=rm; $a` are all `rm`.
 * 2. A path names its last component: `/bin/rm`, `/usr/bin/rm`, `./rm` and `~/bin/rm` are `rm`; where the
 *    file system ignores case (macOS, Windows) `RM` is `rm` too, and on Windows `rm.exe` is.
 * 3. A word the shell completes only when the command runs is `computed`: an expansion the scan cannot
 *    know (`$CMD`, `$(echo rm)`, `` `echo rm` ``, `"$@"`, `"${arr[@]}"`, `rm$IFS`), a glob or brace
 *    expansion (`/bin/r?`, `/bin/r[m]`, `{rm,x}`), or text a wrapper fills in (`xargs -I X X …`).
 *    No rule can be matched against it.
 */
import { basename } from "node:path"
import type { State, Token } from "./frame.ts"
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

/**
 * File systems that ignore case by default (macOS, Windows): there `RM` and `/BIN/RM` run `rm`, and
 * `rm.exe` is `rm` on Windows.
 */
function programName(base: string, platform: NodeJS.Platform): string {
  if (platform !== "darwin" && platform !== "win32") return base
  const lower = base.toLowerCase()
  return platform === "win32" ? lower.replace(/\.(exe|com|cmd|bat)$/, "") : lower
}

/** The command word of `token` (see the module comment). */
export function commandWord(token: Token, platform: NodeJS.Platform = process.platform): CommandWord {
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
  if (/^\/(proc|dev\/fd)\//.test(name)) {
    return {
      kind: "computed",
      source: token.source,
      why: "names a program through /proc or /dev/fd, known only at run time",
    }
  }
  return { kind: "literal", name, base: programName(basename(name) || name, platform) }
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

/**
 * The command words (and the words they split into) that `token` may be when the shell expands it, when
 * that is not simply its one value: a variable that holds one of several values (`c=rm` in one branch,
 * `c=ls` in another) gives each; an expansion whose value holds blanks (`c="rm x"; $c`) is split into
 * words as the shell does, by `IFS`. Undefined when the token is one plain word.
 */
export function commandWordVariants(token: Token, state: State): Token[][] | undefined {
  const values = token.values
  if (values.some((value) => value.dynamicAt < value.text.length)) return undefined
  const expanded = /[$`]/.test(token.source)
  const separators = expanded ? splitters(state) : ""
  if (separators === undefined) {
    // `IFS` was set to something the scan cannot know: how the value splits is not known.
    return [[{ source: token.source, values: values.map((value) => ({ ...value, dynamicAt: 0 })) }]]
  }
  const split = (text: string) =>
    separators === ""
      ? [text]
      : text.split(new RegExp(`[${escapeClass(separators)}]+`)).filter((field) => field !== "")
  const variants = values.map((value) => {
    const fields = split(value.text)
    if (fields.length === 1 && fields[0] === value.text) return [{ source: token.source, values: [value] }]
    return fields.map((field) => ({
      source: field,
      values: [{ text: field, dynamicAt: field.length, globAt: globIndex(field) }],
    }))
  })
  const plain = variants.length === 1 && variants[0]!.length === 1 && variants[0]![0]!.source === token.source
  return plain ? undefined : variants.filter((variant) => variant.length > 0)
}

/** The characters `IFS` splits on: the default blanks, its known value, or undefined when unknown. */
function splitters(state: State): string | undefined {
  if (!state.vars.has("IFS")) return " \t\n"
  const ifs = state.vars.get("IFS")
  return ifs?.length === 1 ? ifs[0]! : undefined
}

function escapeClass(text: string): string {
  return text.replace(/[\\\]^-]/g, "\\$&")
}

function globIndex(text: string): number {
  const match = /[*?[{]/.exec(text)
  return match ? match.index : text.length
}
