// One running language server for one workspace root: the protocol connection (vscode-languageserver-
// protocol over the process's stdio), the documents it has open, and the diagnostics it reports.

import { readFile } from "node:fs/promises"
import { basename } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import {
  createMessageConnection,
  ErrorCodes,
  type MessageConnection,
  ResponseError,
} from "vscode-jsonrpc/node"
import {
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticRequest,
  ExitNotification,
  FileChangeType,
  InitializedNotification,
  InitializeRequest,
  type InitializeResult,
  PublishDiagnosticsNotification,
  type ServerCapabilities,
  ShutdownRequest,
} from "vscode-languageserver-protocol/node"
import type { Diagnostic } from "vscode-languageserver-types"
import { beforeDeadline } from "./before-deadline.ts"
import { clientCapabilities } from "./client-capabilities.ts"
import { languageId } from "./language-id.ts"
import { type Mark, PublishedDiagnostics } from "./published-diagnostics.ts"
import { RESTART_REMEDY, ServerFailure, type ServerTimeouts } from "./server-failure.ts"
import { type ProcessExit, ServerProcess } from "./server-process.ts"
import { answerServerRequests } from "./server-requests.ts"

/** How long a closed connection waits for the process's exit, which tells what happened. */
const EXIT_WAIT_MS = 1000

/** The errors a request gets when the connection is gone rather than from the server. */
const LOST = new Set<number>([ErrorCodes.PendingResponseRejected, ErrorCodes.ConnectionInactive])

/** Files larger than this are not sent to a server. */
const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024

interface OpenDocument {
  version: number
  text: string
}

export interface StartOptions {
  readonly server: string
  readonly argv: readonly string[]
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly initialization: Readonly<Record<string, unknown>> | undefined
  readonly timeouts: ServerTimeouts
  /** Gives up a start that is still going on (the pool closing): the process tree is killed. */
  readonly signal?: AbortSignal
}

/**
 * A started, initialised server.
 * 1. `start`: spawn (server-process.ts), `initialize` with the root as the only workspace folder and the
 *    configured `initialization`, then `initialized` and the settings. An exit or no answer within the
 *    start timeout fails the start, and the process tree is killed.
 * 2. `sync`: a file opened from disk on first use (`didOpen`), its whole new text sent when it changed
 *    (`didChange`, version + 1); a file gone is closed.
 * 3. `request`: one request; no answer within the request timeout means the server hangs: it is stopped.
 * 4. `diagnostics`: pulled (`textDocument/diagnostic`) from servers that offer it, else the pushed ones
 *    that follow the change.
 * 5. `failure` resolves when the server ends by itself (a crash) or is stopped as hung; `close` shuts it
 *    down politely, then kills whatever of its tree is left.
 */
export class ServerClient {
  readonly server: string
  readonly root: string
  /** Resolves with what went wrong once the server has crashed or was stopped as hung (never on close). */
  readonly failure: Promise<ServerFailure>
  readonly #process: ServerProcess
  readonly #connection: MessageConnection
  readonly #timeouts: ServerTimeouts
  readonly #documents = new Map<string, OpenDocument>()
  readonly #published = new PublishedDiagnostics()
  readonly #pulled = new Map<string, { resultId: string | undefined; items: Diagnostic[] }>()
  /** Rejects with the failure once there is one: raced against every wait on the server. */
  readonly #gone: Promise<never>
  #capabilities: ServerCapabilities = {}
  #failed: ServerFailure | undefined
  #fail!: (failure: ServerFailure) => void
  #closing = false

  private constructor(options: StartOptions, process: ServerProcess) {
    this.server = options.server
    this.root = options.root
    this.#timeouts = options.timeouts
    this.#process = process
    this.failure = new Promise((resolve) => {
      this.#fail = (failure) => {
        if (this.#failed || this.#closing) return
        this.#failed = failure
        resolve(failure)
      }
    })
    this.#gone = this.failure.then((failure) => Promise.reject(failure))
    this.#gone.catch(() => {})
    this.#connection = createMessageConnection(process.stdout, process.stdin)
    answerServerRequests(this.#connection, options)
    this.#connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.#published.publish(pathOf(params.uri), params.diagnostics, params.version)
    })
    // Log messages and progress are not shown anywhere: accept and drop them.
    this.#connection.onNotification(() => {})
    this.#connection.onError(() => {})
    this.#connection.listen()
    void process.exited.then((exit) => {
      this.#fail(
        new ServerFailure(
          `The ${this.server} language server ${exitedWithRemedy(exit, process.stderrTail)}`,
          "crash",
        ),
      )
      this.#connection.dispose()
    })
  }

  /** Starts the server for `root` and initialises it; throws ServerFailure when it cannot. */
  static async start(options: StartOptions): Promise<ServerClient> {
    const process = new ServerProcess({ argv: options.argv, cwd: options.root, env: options.env })
    const client = new ServerClient(options, process)
    try {
      await client.#initialize(options)
      return client
    } catch (error) {
      // Exited before it was ready, or too slow: the error says which; the kill that follows is ours.
      client.#closing = true
      await client.#stop()
      throw error
    }
  }

  /** Whether the server still runs and answers. */
  get alive(): boolean {
    return !this.#failed && !this.#closing
  }

  /** Why the server is gone, if it is. */
  get failed(): ServerFailure | undefined {
    return this.#failed
  }

  /**
   * Brings the server's copy of `file` up to date with the disk: opens it, sends its new text, or closes
   * it when it is gone. Returns the mark its diagnostics are waited from, or undefined when it is gone.
   */
  async sync(file: string): Promise<{ uri: string; mark: Mark; changed: boolean } | undefined> {
    const uri = pathToFileURL(file).href
    const text = await readDocument(file)
    const open = this.#documents.get(file)
    if (text === undefined) {
      if (open) this.forget(file)
      return undefined
    }
    this.#check()
    if (open && open.text === text)
      return { uri, mark: this.#published.mark(file, open.version), changed: false }
    const version = (open?.version ?? 0) + 1
    const mark = this.#published.mark(file, version)
    this.#documents.set(file, { version, text })
    if (open) {
      await this.#connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version },
        contentChanges: [{ text }],
      })
      await this.#connection.sendNotification(DidChangeWatchedFilesNotification.type, {
        changes: [{ uri, type: FileChangeType.Changed }],
      })
    } else {
      await this.#connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId: languageId(file), version, text },
      })
    }
    return { uri, mark, changed: true }
  }

  /** Closes `file` (it was deleted or moved away) and tells the server it is gone. */
  forget(file: string): void {
    if (!this.#documents.delete(file) || !this.alive) return
    const uri = pathToFileURL(file).href
    void this.#connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } })
    void this.#connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [{ uri, type: FileChangeType.Deleted }],
    })
  }

  /** Sends one request. No answer within the request timeout: the server is stopped as hung. */
  async request<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R | null> {
    this.#check()
    const answer = this.#connection.sendRequest<R | null>(method, params)
    // Settled elsewhere when the server hangs, fails or the caller gives up.
    answer.catch(() => {})
    let timer: NodeJS.Timeout | undefined
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const seconds = this.#timeouts.requestMs / 1000
        const failure = new ServerFailure(
          `The ${this.server} language server did not answer ${method} within ${seconds} s, so it was stopped. ${RESTART_REMEDY}`,
          "hang",
        )
        this.#fail(failure)
        reject(failure)
        void this.#stop()
      }, this.#timeouts.requestMs)
    })
    const aborted = abortion(signal)
    try {
      return await Promise.race([answer, hung, aborted.promise, this.#gone])
    } catch (error) {
      if (signal?.aborted || (error instanceof ResponseError && !LOST.has(error.code))) throw error
      // The connection closed under the request: the server's end says why (a crash, or the hang above).
      throw this.#failed ?? (await beforeDeadline(this.failure, Date.now() + EXIT_WAIT_MS)) ?? error
    } finally {
      clearTimeout(timer)
      aborted.dispose()
    }
  }

  /**
   * The diagnostics of `file` as `sync` left it, waiting until `deadline` at most: pulled when the server
   * offers that, else the pushed ones that follow the change (or the last ones, when nothing changed).
   * Undefined when the server said nothing in time.
   */
  async diagnostics(
    file: string,
    synced: { mark: Mark; changed: boolean },
    deadline: number,
    signal?: AbortSignal,
  ): Promise<readonly Diagnostic[] | undefined> {
    if (this.#capabilities.diagnosticProvider) return this.#pull(file, deadline, signal)
    // Nothing new was sent: what the server said last is still its word on the file.
    const current = synced.changed ? undefined : this.#published.current(file)
    return current ?? this.#published.after(synced.mark, deadline, signal)
  }

  /** The diagnostics the server last pushed, for every file it has reported on. */
  reported(): Map<string, readonly Diagnostic[]> {
    return this.#published.all()
  }

  /** `shutdown`, `exit`, then the process tree killed: nothing of the server is left when this resolves. */
  async close(): Promise<void> {
    if (this.#closing) return
    const polite = this.alive
    this.#closing = true
    if (polite) {
      const within = <T>(promise: Promise<T>) =>
        Promise.race([promise, new Promise((resolve) => setTimeout(resolve, this.#timeouts.shutdownMs))])
      await within(this.#connection.sendRequest(ShutdownRequest.type).catch(() => {}))
      await this.#connection.sendNotification(ExitNotification.type).catch(() => {})
      await within(this.#process.exited)
    }
    await this.#stop()
  }

  async #stop(): Promise<void> {
    this.#connection.dispose()
    await this.#process.stop()
  }

  #check(): void {
    if (this.#failed) throw this.#failed
    if (this.#closing)
      throw new ServerFailure(`The ${this.server} language server was shut down. ${RESTART_REMEDY}`)
  }

  async #initialize(options: StartOptions): Promise<void> {
    const rootUri = pathToFileURL(options.root).href
    const answer = this.#connection.sendRequest(InitializeRequest.type, {
      processId: globalThis.process.pid,
      clientInfo: { name: "toolbelt" },
      rootUri,
      rootPath: options.root,
      workspaceFolders: [{ uri: rootUri, name: basename(options.root) || options.root }],
      capabilities: clientCapabilities,
      initializationOptions: options.initialization ?? {},
    })
    answer.catch(() => {})
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new ServerFailure(
            `The ${this.server} language server did not finish starting within ${options.timeouts.startMs / 1000} s, so it was stopped. ${RESTART_REMEDY}`,
            "hang",
          ),
        )
      }, options.timeouts.startMs)
    })
    const aborted = abortion(options.signal)
    try {
      const result: InitializeResult = await Promise.race([answer, late, this.#gone, aborted.promise])
      this.#capabilities = result.capabilities
    } finally {
      clearTimeout(timer)
      aborted.dispose()
    }
    await this.#connection.sendNotification(InitializedNotification.type, {})
    if (options.initialization)
      await this.#connection.sendNotification(DidChangeConfigurationNotification.type, {
        settings: options.initialization,
      })
  }

  async #pull(
    file: string,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<readonly Diagnostic[] | undefined> {
    const uri = pathToFileURL(file).href
    const previous = this.#pulled.get(file)
    const report = this.request<{ kind: string; resultId?: string; items?: Diagnostic[] }>(
      DocumentDiagnosticRequest.method,
      { textDocument: { uri }, ...(previous?.resultId ? { previousResultId: previous.resultId } : {}) },
      signal,
    ).then(
      (result) => {
        if (result?.kind === "full") {
          const items = result.items ?? []
          this.#pulled.set(file, { resultId: result.resultId, items })
          return items
        }
        return previous?.items
      },
      () => undefined,
    )
    return beforeDeadline(report, deadline)
  }
}

/** A file's text to send, or undefined when it is gone; too large a file fails. */
async function readDocument(file: string): Promise<string | undefined> {
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch {
    return undefined
  }
  if (bytes.length > MAX_DOCUMENT_BYTES)
    throw new ServerFailure(
      `${file} is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB, which is not sent to language servers. Use grep or read on it instead.`,
    )
  return bytes.toString("utf8")
}

function pathOf(uri: string): string {
  try {
    return fileURLToPath(uri)
  } catch {
    return uri
  }
}

/** How the server's process ended, its last output, and what to do: install it, or call again. */
function exitedWithRemedy(exit: ProcessExit, stderr: string): string {
  const output = stderr ? ` Its last output:\n${stderr}\n` : " "
  if (exit.error)
    return `could not be started (${exit.error}).${output}Check that it is installed and can be run from the project.`
  return `exited unexpectedly (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`}).${output}${RESTART_REMEDY}`
}

function abortion(signal: AbortSignal | undefined): { promise: Promise<never>; dispose: () => void } {
  if (!signal) return { promise: new Promise<never>(() => {}), dispose: () => {} }
  let onAbort = () => {}
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    if (signal.aborted) onAbort()
    else signal.addEventListener("abort", onAbort, { once: true })
  })
  return { promise, dispose: () => signal.removeEventListener("abort", onAbort) }
}
