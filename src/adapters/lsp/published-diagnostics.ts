// The diagnostics a server pushes (textDocument/publishDiagnostics), and waiting for the ones that follow
// a change. Servers publish when they are done checking, sometimes in several rounds (syntax first,
// types later), so a change's diagnostics are the last publish after it once the server has gone quiet.
import type { Diagnostic } from "vscode-languageserver-types"

interface Published {
  readonly diagnostics: readonly Diagnostic[]
  /** The document version the server checked, when it says. */
  readonly version: number | undefined
  /** How many publishes this file has had, this one included. */
  readonly count: number
  readonly at: number
}

/** Where a file's publishes stood when a change was sent: what a wait looks past. */
export interface Mark {
  readonly file: string
  readonly count: number
  /** The version the change gave the document. */
  readonly version: number
}

/**
 * Quiet after a publish before it counts as the last of its round: typescript-language-server publishes
 * syntax errors and type errors apart, about 150 ms between them on a cold project.
 */
export const QUIET_MS = 300

export class PublishedDiagnostics {
  readonly #byFile = new Map<string, Published>()
  readonly #listeners = new Set<() => void>()
  readonly #quietMs: number

  constructor(options: { quietMs?: number } = {}) {
    this.#quietMs = options.quietMs ?? QUIET_MS
  }

  /** Records one publish (a file's whole list, replacing the last). */
  publish(file: string, diagnostics: readonly Diagnostic[], version: number | undefined): void {
    const count = (this.#byFile.get(file)?.count ?? 0) + 1
    this.#byFile.set(file, { diagnostics, version, count, at: Date.now() })
    for (const listener of [...this.#listeners]) listener()
  }

  /** The point a change to `file` (now at `version`) is sent from. */
  mark(file: string, version: number): Mark {
    return { file, count: this.#byFile.get(file)?.count ?? 0, version }
  }

  /** What the server last said about `file`, if anything. */
  current(file: string): readonly Diagnostic[] | undefined {
    return this.#byFile.get(file)?.diagnostics
  }

  /** Every file the server has published for, with its last list. */
  all(): Map<string, readonly Diagnostic[]> {
    return new Map([...this.#byFile].map(([file, published]) => [file, published.diagnostics]))
  }

  /**
   * The diagnostics for the change at `mark`: the last publish after it (for its version or later, when
   * the server gives versions) once the server has been quiet for a moment. At `deadline`, the newest
   * such publish, or undefined when none came. `signal` ends the wait the same way.
   */
  async after(
    mark: Mark,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<readonly Diagnostic[] | undefined> {
    for (;;) {
      const published = this.#byFile.get(mark.file)
      const fresh =
        published && published.count > mark.count && (published.version ?? mark.version) >= mark.version
          ? published
          : undefined
      const now = Date.now()
      if (fresh && now - fresh.at >= this.#quietMs) return fresh.diagnostics
      if (now >= deadline || signal?.aborted) return fresh?.diagnostics
      const until = Math.min(deadline, fresh ? fresh.at + this.#quietMs : deadline)
      await this.#next(until - now, signal)
    }
  }

  /** Resolves at the next publish, after `ms`, or on abort, whichever is first. */
  #next(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.#listeners.delete(done)
        signal?.removeEventListener("abort", done)
        resolve()
      }
      const timer = setTimeout(done, Math.max(0, ms))
      this.#listeners.add(done)
      signal?.addEventListener("abort", done, { once: true })
    })
  }
}
