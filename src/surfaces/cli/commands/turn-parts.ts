// What `toolbelt run` shows of a turn: the calls of its session, and below each task call the calls
// of the subagent it started (and of theirs), indented under a line naming the subagent.
import type { ToolPart } from "../../../platform/store/part.ts"
import type { SessionInfo } from "../../../platform/store/sessions.ts"

/** Shows the moves of one session's tool parts. */
export interface Renderer {
  update(part: ToolPart): void
}

/** How far below the turn's session subagents are still shown (deeper ones are cut off). */
const MAX_DEPTH = 8

export class TurnParts {
  readonly #root: string
  readonly #session: (id: string) => SessionInfo | undefined
  readonly #out: NodeJS.WritableStream
  readonly #make: (out: NodeJS.WritableStream) => Renderer
  /** The renderer of each session seen; null for a session outside the turn. */
  readonly #renderers = new Map<string, Renderer | null>()

  constructor(options: {
    /** The turn's session. */
    readonly root: string
    /** Looks a session up (its parent and title). */
    readonly session: (id: string) => SessionInfo | undefined
    readonly out: NodeJS.WritableStream
    /** A renderer writing to `out` (the turn's own, or an indented one for a subagent). */
    readonly make: (out: NodeJS.WritableStream) => Renderer
  }) {
    this.#root = options.root
    this.#session = options.session
    this.#out = options.out
    this.#make = options.make
    this.#renderers.set(this.#root, options.make(options.out))
  }

  /** Shows a part of the turn's session or of a subagent session below it; ignores any other. */
  update(part: ToolPart): void {
    this.#rendererOf(part.sessionID)?.update(part)
  }

  #rendererOf(sessionID: string): Renderer | null {
    const known = this.#renderers.get(sessionID)
    if (known !== undefined) return known
    const session = this.#session(sessionID)
    const depth = session ? this.#depthBelowRoot(session) : undefined
    let renderer: Renderer | null = null
    if (session && depth !== undefined) {
      const indent = "    ".repeat(depth)
      this.#out.write(`${indent.slice(2)}↳ ${session.title || `@${session.agent} subagent`}\n`)
      renderer = this.#make(indented(this.#out, indent))
    }
    this.#renderers.set(sessionID, renderer)
    return renderer
  }

  /** How many levels below the turn's session `session` is (1: its own subagent); undefined if not below. */
  #depthBelowRoot(session: SessionInfo): number | undefined {
    let at: SessionInfo | undefined = session
    for (let depth = 1; at?.parentID !== undefined && depth <= MAX_DEPTH; depth++) {
      if (at.parentID === this.#root) return depth
      at = this.#session(at.parentID)
    }
    return undefined
  }
}

/** `out` with `indent` before every line (renderers write whole lines). */
function indented(out: NodeJS.WritableStream, indent: string): NodeJS.WritableStream {
  return {
    write: (chunk: string) => out.write(chunk.replace(/(^|\n)(?=[^\n])/g, `$1${indent}`)),
  } as unknown as NodeJS.WritableStream
}
