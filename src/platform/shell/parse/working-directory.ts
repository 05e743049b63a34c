/** How `cd`, `chdir`, `pushd` and `popd` move the working directory the scan tracks. */
import { isAbsolute, resolve } from "node:path"
import type { PathChecks } from "./external-paths.ts"
import type { State, Token } from "./frame.ts"
import type { Findings } from "./reasons.ts"
import { knownValue } from "./words.ts"

/** The commands that change the working directory (they give no `bash` pattern). */
export const CD_FAMILY: ReadonlySet<string> = new Set(["cd", "chdir", "pushd", "popd"])

/** What a directory change needs: the home directory, the path checks, and where reasons go. */
export interface DirectoryContext {
  readonly home: string
  readonly paths: PathChecks
  readonly findings: Findings
}

/** Applies `cd`/`chdir`/`pushd`/`popd` (named `base`, with `tokens` name first) to `state`. */
export function changeDirectory(
  base: string,
  tokens: readonly Token[],
  state: State,
  context: DirectoryContext,
): void {
  const args = tokens.slice(1).filter((token, index, all) => {
    const value = knownValue(token.values)
    if (value === "--") return false
    const afterDashes = all.slice(0, index).some((previous) => knownValue(previous.values) === "--")
    return afterDashes || !(value !== undefined && /^-[LPe@]+$/.test(value))
  })
  const target = args[0]
  const move = (next: string | undefined) => {
    state.oldpwd = state.cwd
    state.cwd = next
  }
  if (base === "popd") {
    if (args.length > 0) move(undefined)
    else if (state.stack.length > 0) move(state.stack.pop())
    return
  }
  if (base === "pushd") {
    if (!target) {
      if (state.stack.length === 0) return
      const top = state.stack.pop()
      state.stack.push(state.cwd)
      move(top)
      return
    }
    if (/^[+-][0-9]+$/.test(knownValue(target.values) ?? "")) {
      context.findings.note(`the working directory is not known after ${base} ${target.source}`)
      move(undefined)
      return
    }
    state.stack.push(state.cwd)
  }
  if (!target) {
    context.paths.check(context.home, "dir")
    move(context.home)
    return
  }
  if (base === "cd" && knownValue(target.values) === "-") {
    move(state.oldpwd)
    return
  }
  context.paths.checkToken(target, 0, "dir", state)
  move(directoryOf(target, state, context.findings))
}

/** The directory a `cd`-like target leads to, when the scan can know it. */
export function directoryOf(token: Token, state: State, findings: Findings): string | undefined {
  const value = token.values.length === 1 ? token.values[0]! : undefined
  const known = value && value.dynamicAt === value.text.length && value.globAt === value.text.length
  if (!known) {
    findings.note(`the working directory is not known after moving to ${token.source}`)
    return undefined
  }
  if (isAbsolute(value.text)) return resolve(value.text)
  return state.cwd === undefined ? undefined : resolve(state.cwd, value.text)
}
