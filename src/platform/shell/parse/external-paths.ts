/**
 * The external-directory check: paths the command touches are queued as the scan finds them, then
 * located (`locate.ts`) to list the real directories outside the project.
 */
import { isAbsolute, resolve } from "node:path"
import type { State, Token } from "./frame.ts"
import { externalDirectory, isHarmlessDevice } from "./locate.ts"
import type { PathKind } from "./operand-table.ts"
import type { Findings } from "./reasons.ts"

/** The paths queued for the external-directory check, each with the strongest kind seen. */
export class PathChecks {
  private readonly checks = new Map<string, PathKind>()
  private readonly home: string
  private readonly findings: Findings

  constructor(home: string, findings: Findings) {
    this.home = home
    this.findings = findings
  }

  /** Queues the path in `token` (from `offset` in its value) for the external-directory check. */
  checkToken(token: Token, offset: number, kind: PathKind, state: State): void {
    for (const value of token.values) {
      let text = value.text.slice(offset)
      let dynamicAt = Math.max(0, value.dynamicAt - offset)
      let globAt = Math.max(0, value.globAt - offset)
      if (offset > 0 && (text === "~" || text.startsWith("~/")) && dynamicAt > 0 && globAt > 0) {
        text = this.home + text.slice(1)
        dynamicAt += this.home.length - 1
        globAt += this.home.length - 1
      }
      this.checkPath(text, dynamicAt, globAt, kind, state, token.source)
    }
  }

  private checkPath(
    text: string,
    dynamicAt: number,
    globAt: number,
    kind: PathKind,
    state: State,
    source: string,
  ) {
    if (text === "") return
    if (dynamicAt === 0) {
      this.findings.note(`cannot tell where ${source} points`)
      return
    }
    let path = text
    const cut = Math.min(dynamicAt, globAt)
    if (cut < text.length) {
      // A glob or an unknown part: check the directory holding it.
      path = text.slice(0, text.lastIndexOf("/", cut - 1) + 1) || "."
      kind = "dir"
    }
    let absolute: string
    if (isAbsolute(path)) absolute = path
    else if (state.cwd === undefined) {
      this.findings.note(`cannot tell where ${source} points: the working directory is not known`)
      return
    } else absolute = `${state.cwd}/${path}`
    this.check(absolute, kind)
  }

  /** Queues an absolute path (may contain `..`) for the external-directory check. */
  check(absolute: string, kind: PathKind): void {
    if (isHarmlessDevice(resolve(absolute))) return
    const previous = this.checks.get(absolute)
    if (previous === undefined || previous === "file") this.checks.set(absolute, kind)
  }

  /** Resolves the queued paths: the real directories outside `roots`, unique, in the order found. */
  externals(roots: readonly string[]): string[] {
    const found: string[] = []
    for (const [path, kind] of this.checks) {
      const directory = externalDirectory(path, kind, roots)
      if (directory !== undefined) found.push(directory)
    }
    return [...new Set(found)]
  }
}
