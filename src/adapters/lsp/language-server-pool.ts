// The language servers of one project, as the tools see them (runtime/tool/language-servers.ts): which
// server handles a file, started on first use for its workspace root, restarted once after a crash, and
// all shut down with the toolbelt.

import { existsSync } from "node:fs"
import { extname } from "node:path"
import type { Diagnostic } from "vscode-languageserver-types"
import type {
  ChangeDiagnostics,
  LanguageServers,
  ServerAnswer,
  ServerLookup,
  ServerSession,
} from "../../runtime/tool/language-servers.ts"
import { beforeDeadline } from "./before-deadline.ts"
import { serverConfig } from "./lsp-config.ts"
import { nearestRoot } from "./nearest-root.ts"
import type { ServerClient } from "./server-client.ts"
import { isLaunch, type Launch, type ServerDefinition } from "./server-definition.ts"
import { DEFAULT_TIMEOUTS, RESTART_REMEDY, ServerFailure, type ServerTimeouts } from "./server-failure.ts"

/** How long an edit waits for its diagnostics, at most (opencode waits 5 s for a document's). */
export const DIAGNOSTICS_WAIT_MS = 5000

const GIVEN_UP = "It failed"
/** Why a call finds no server once the toolbelt closed, and what to do. */
const SHUT_DOWN =
  "The language servers were shut down with the toolbelt. Open the project in a new toolbelt to use them again."

const OFF = 'Language servers are turned off in the config ("lsp": false).'

/** Failures (crashes, hangs, failed starts) after which a server is not started again. */
const MAX_FAILURES = 2

export interface LanguageServerPoolOptions {
  /** The project directory: workspace roots are looked for up to it, and it is the root without markers. */
  readonly directory: string
  /** The config's `lsp` section. */
  readonly config: unknown
  /** toolbelt's environment (PATH finds the programs; the servers inherit it). */
  readonly env: Readonly<Record<string, string | undefined>>
  readonly timeouts?: Partial<ServerTimeouts>
  /** How long `diagnostics` waits, at most (default 5 s). */
  readonly diagnosticsWaitMs?: number
  /** Whether edits wait for diagnostics (default true); see `LanguageServers.afterEdits`. */
  readonly afterEdits?: boolean
  /** Whether the project's own programs may run (a project a person trusted); default true. */
  readonly projectPrograms?: boolean
}

/** One server for one root: its client while it runs, and how often it failed. */
interface Slot {
  readonly definition: ServerDefinition
  readonly root: string
  readonly launch: Launch
  client: Promise<ServerClient> | undefined
  failures: number
  lastFailure: ServerFailure | undefined
}

/** Where a file would be served: each server for it, with its root and how it starts. */
type Placement = { readonly slots: Slot[] } | { readonly reason: string }

export class LanguageServerPool implements LanguageServers {
  readonly off: string | undefined
  readonly afterEdits: boolean
  readonly #directory: string
  readonly #env: Readonly<Record<string, string | undefined>>
  readonly #projectPrograms: boolean
  readonly #timeouts: ServerTimeouts
  readonly #waitMs: number
  readonly #byExtension = new Map<string, ServerDefinition[]>()
  readonly #problems: readonly string[]
  readonly #slots = new Map<string, Slot>()
  #closed: Promise<void> | undefined
  /** Aborted at close: a server still starting is killed instead of waited for. */
  readonly #closing = new AbortController()

  constructor(options: LanguageServerPoolOptions) {
    this.#directory = options.directory
    this.#env = options.env
    this.#projectPrograms = options.projectPrograms ?? true
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts }
    this.#waitMs = options.diagnosticsWaitMs ?? DIAGNOSTICS_WAIT_MS
    this.off = options.config === false ? OFF : undefined
    this.afterEdits = options.afterEdits ?? true
    const { servers, problems } = serverConfig(options.config)
    this.#problems = problems
    for (const server of servers) {
      for (const ext of server.extensions) {
        const list = this.#byExtension.get(ext) ?? []
        list.push(server)
        this.#byExtension.set(ext, list)
      }
    }
  }

  lookup(file: string): ServerLookup {
    const placement = this.#place(file)
    if ("reason" in placement) return { kind: "none", reason: placement.reason }
    return { kind: "servers", servers: placement.slots.map((slot) => slot.definition.id) }
  }

  /**
   * 1. The servers for `file` (none: an empty list; `lookup` says why).
   * 2. Per server, in parallel: its client (started if needed), the file synced from disk, then `work`.
   * 3. A server that crashed meanwhile (or at start) is restarted and `work` tried once more; a second
   *    failure, a hang, or an error `work` throws becomes that server's failed answer.
   */
  async withServers<T>(
    file: string,
    work: (session: ServerSession) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<ServerAnswer<T>[]> {
    const placement = this.#place(file)
    if ("reason" in placement) return []
    return Promise.all(placement.slots.map((slot) => this.#answer(slot, file, work, signal)))
  }

  /**
   * 1. The changed files no server handles cost nothing: with none left, the answer is immediate.
   * 2. A file that is gone is closed in the servers that have it open.
   * 3. Each other file is synced to each of its servers (started if needed), and its diagnostics awaited,
   *    all in parallel, until the deadline at most. A server that fails only leaves its files out.
   * 4. `others`: the files the same servers report diagnostics for besides the changed ones.
   */
  async diagnostics(files: readonly string[], signal?: AbortSignal): Promise<ChangeDiagnostics> {
    const deadline = Date.now() + this.#waitMs
    const jobs: Promise<{ file: string; slot: Slot; diagnostics: readonly Diagnostic[] | undefined }>[] = []
    for (const file of new Set(files)) {
      const placement = this.#place(file)
      if ("reason" in placement) continue
      if (!existsSync(file)) {
        for (const slot of placement.slots)
          void settledClient(slot.client).then((client) => client?.forget(file))
        continue
      }
      for (const slot of placement.slots) {
        jobs.push(
          this.#diagnose(slot, file, deadline, signal).then((diagnostics) => ({ file, slot, diagnostics })),
        )
      }
    }
    if (jobs.length === 0) return { files: {}, others: {} }
    const results = await Promise.all(jobs)
    const changed = new Set(files)
    const byFile: Record<string, Diagnostic[]> = {}
    const others: Record<string, Diagnostic[]> = {}
    const clients = new Set<Promise<ServerClient>>()
    for (const { file, slot, diagnostics } of results) {
      if (diagnostics) byFile[file] = [...(byFile[file] ?? []), ...diagnostics]
      if (slot.client) clients.add(slot.client)
    }
    for (const pending of clients) {
      const client = await settledClient(pending)
      if (!client?.alive) continue
      for (const [file, diagnostics] of client.reported()) {
        if (!changed.has(file) && diagnostics.length > 0)
          others[file] = [...(others[file] ?? []), ...diagnostics]
      }
    }
    return { files: byFile, others }
  }

  /** Shuts every server down (politely, then by killing its process tree); later calls find none. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort(new ServerFailure(SHUT_DOWN))
      const clients = [...this.#slots.values()].map((slot) => slot.client)
      await Promise.all(clients.map(async (pending) => (await settledClient(pending))?.close()))
    })()
    return this.#closed
  }

  /** The servers for `file`, each with its root and launch; or why there is none. */
  #place(file: string): Placement {
    const ext = extname(file).toLowerCase()
    if (this.off) return { reason: this.off }
    const definitions = this.#byExtension.get(ext) ?? []
    const problems = this.#problems.length ? ` Config problems: ${this.#problems.join("; ")}.` : ""
    if (definitions.length === 0) {
      const type = ext ? `${ext} files` : "files without an extension"
      return {
        reason:
          `No LSP server available for this file type: no language server is configured for ${type}. ` +
          `Configure one under "lsp" in toolbelt.json, e.g. {"lsp": {"name": {"command": ["program", "--stdio"], "extensions": ["${ext || ".ext"}"]}}}.${problems}`,
      }
    }
    const slots: Slot[] = []
    const missing: string[] = []
    for (const definition of definitions) {
      const root = nearestRoot({ file, markers: definition.rootMarkers, directory: this.#directory })
      const key = `${definition.id}\0${root}`
      const known = this.#slots.get(key)
      if (known) {
        slots.push(known)
        continue
      }
      const launch = definition.launch({
        root,
        directory: this.#directory,
        env: this.#env,
        projectPrograms: this.#projectPrograms,
        ...(definition.initialization ? { initialization: definition.initialization } : {}),
      })
      if (!isLaunch(launch)) {
        missing.push(`the ${definition.id} server handles ${ext} files, but ${launch.missing}`)
        continue
      }
      const slot: Slot = { definition, root, launch, client: undefined, failures: 0, lastFailure: undefined }
      this.#slots.set(key, slot)
      slots.push(slot)
    }
    if (slots.length === 0)
      return { reason: `No LSP server available for this file type: ${missing.join("; ")}.${problems}` }
    return { slots }
  }

  async #answer<T>(
    slot: Slot,
    file: string,
    work: (session: ServerSession) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<ServerAnswer<T>> {
    const server = slot.definition.id
    for (let attempt = 0; ; attempt++) {
      try {
        const client = await this.#client(slot)
        const synced = await client.sync(file)
        if (!synced) return { server, ok: false, error: `File not found: ${file}` }
        const session: ServerSession = {
          server,
          root: slot.root,
          uri: synced.uri,
          request: (method, params) => client.request(method, params, signal),
        }
        return { server, ok: true, value: await work(session) }
      } catch (error) {
        if (signal?.aborted) throw signal.reason
        const retry = error instanceof ServerFailure && error.kind === "crash" && attempt === 0
        if (retry && slot.failures < MAX_FAILURES) continue
        return { server, ok: false, error: this.#failureMessage(slot, error) }
      }
    }
  }

  /** `file`'s diagnostics from one server, by `deadline` at most; undefined when there are none to give. */
  async #diagnose(
    slot: Slot,
    file: string,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<readonly Diagnostic[] | undefined> {
    try {
      const starting = this.#client(slot)
      starting.catch(() => {})
      const client = await beforeDeadline(starting, deadline)
      if (!client) return undefined
      const synced = await client.sync(file)
      if (!synced) return undefined
      return await client.diagnostics(file, synced, deadline, signal)
    } catch {
      // The edit goes on without diagnostics; the failure counts against the server (see #client).
      return undefined
    }
  }

  /** The slot's running client, started when there is none; a slot that failed too often throws. */
  async #client(slot: Slot): Promise<ServerClient> {
    if (this.#closed) throw new ServerFailure(SHUT_DOWN)
    const current = slot.client ? await settledClient(slot.client) : undefined
    if (current?.alive) return current
    if (slot.failures >= MAX_FAILURES && slot.lastFailure)
      throw new ServerFailure(this.#failureMessage(slot, slot.lastFailure))
    const starting = this.#start(slot)
    slot.client = starting
    return starting
  }

  /** What a failed answer says: the error, and for a server that failed too often, that it stays down. */
  #failureMessage(slot: Slot, error: unknown): string {
    const message = describe(error)
    if (!(error instanceof ServerFailure) || slot.failures < MAX_FAILURES || message.includes(GIVEN_UP))
      return message
    const stays = `${GIVEN_UP} ${slot.failures} times, so toolbelt does not start it again until toolbelt restarts.`
    return `${message.endsWith(RESTART_REMEDY) ? message.slice(0, -RESTART_REMEDY.length).trimEnd() : message}\n${stays} Fix the server (its output may say why) and restart toolbelt; use grep and read meanwhile.`
  }

  async #start(slot: Slot): Promise<ServerClient> {
    const failed = (failure: ServerFailure) => {
      slot.failures++
      slot.lastFailure = failure
    }
    // Loaded on first use: the protocol library is not needed by a toolbelt that starts no server.
    const { ServerClient } = await import("./server-client.ts")
    try {
      const client = await ServerClient.start({
        server: slot.definition.id,
        argv: slot.launch.argv,
        root: slot.root,
        env: { ...this.#env, ...slot.definition.env },
        // What the launch chose (the TypeScript to use) under what config says.
        initialization: slot.launch.initialization
          ? mergedSettings(slot.launch.initialization, slot.definition.initialization)
          : slot.definition.initialization,
        timeouts: this.#timeouts,
        signal: this.#closing.signal,
      })
      void client.failure.then(failed)
      if (this.#closed) await client.close()
      return client
    } catch (error) {
      failed(error instanceof ServerFailure ? error : new ServerFailure(describe(error), "crash"))
      throw error
    }
  }
}

async function settledClient(pending: Promise<ServerClient> | undefined): Promise<ServerClient | undefined> {
  try {
    return await pending
  } catch {
    return undefined
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** `over` laid on `base`, objects merged key by key. */
function mergedSettings(
  base: Readonly<Record<string, unknown>>,
  over: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over ?? {})) {
    const under = out[key]
    out[key] = isObject(under) && isObject(value) ? mergedSettings(under, value) : value
  }
  return out
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
