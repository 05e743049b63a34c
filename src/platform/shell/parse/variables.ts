/**
 * What the scan knows of variables as the command runs, kept honest: a value is known only when every
 * path to the command gives it. A variable set in a branch that may not run (`if`, loops, `case`, the
 * right of `&&`/`||`, a function body that may be called later) may hold its old value or the new one;
 * one set by a command at run time (`read`, `mapfile`, `printf -v`, `${x:=…}`, `source`) is not known.
 * Otherwise `c=rm; if false; then c=ls; fi; $c x` would look like `ls x`.
 */
import type { State } from "./frame.ts"

/** Sets `name` to `values` (undefined: unknown); where the assignment may not run, to either value. */
export function assign(
  state: State,
  name: string,
  values: readonly string[] | undefined,
  conditional: boolean,
): void {
  if (!conditional) {
    state.vars.set(name, values)
    return
  }
  // Not set before: it may hold whatever the environment gave it.
  const before = state.vars.get(name)
  state.vars.set(name, before === undefined || values === undefined ? undefined : union(before, values))
}

/**
 * After code that may or may not have run in a copy of the state (a function body): its assignments may
 * hold. Returns the names it set.
 */
export function mergeBack(outer: State, inner: State): string[] {
  const names: string[] = []
  for (const [name, values] of inner.vars) {
    const before = outer.vars.get(name)
    if (before === values && outer.vars.has(name)) continue
    names.push(name)
    outer.vars.set(name, before === undefined || values === undefined ? undefined : union(before, values))
  }
  return names
}

/** Every variable becomes unknown (`source f`, `eval "$x"`: any of them may have been set). */
export function forgetAll(state: State): void {
  for (const name of state.vars.keys()) state.vars.set(name, undefined)
}

/** Builtins that set the variables named in their arguments when they run. */
const SETTERS: ReadonlySet<string> = new Set(["read", "mapfile", "readarray", "getopts", "wait", "let"])

/**
 * The variables a command sets at run time: the name-like arguments of `read`, `mapfile`, `getopts`…,
 * the value of `printf -v`, and every `${name:=…}` / `${name=…}` in its text.
 */
export function setAtRunTime(base: string | undefined, words: readonly string[], text: string): string[] {
  const names: string[] = []
  if (base !== undefined && SETTERS.has(base)) {
    for (const word of words.slice(1)) {
      const name = /^([A-Za-z_][A-Za-z0-9_]*)(?:[=[+-]|$)/.exec(word)?.[1]
      if (name) names.push(name)
    }
  }
  if (base === "printf") {
    words.forEach((word, i) => {
      if (word === "-v" && words[i + 1]) names.push(words[i + 1]!.replace(/\[.*$/, ""))
    })
  }
  for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*):?[=]/g)) names.push(match[1]!)
  return names
}

/** Marks `names` unknown. */
export function forget(state: State, names: readonly string[]): void {
  for (const name of names) state.vars.set(name, undefined)
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])]
}
