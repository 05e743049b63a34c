// What tools get from the language-server client (src/adapters/lsp/): the tools know the protocol's
// requests and results, never how servers are found, started, synced or stopped.
import type { Diagnostic } from "vscode-languageserver-types"

/** Which servers would handle a file, or why none would. */
export type ServerLookup =
  | { readonly kind: "servers"; readonly servers: readonly string[] }
  | {
      readonly kind: "none"
      /** What the model reads: why no server applies and what would make one apply. */
      readonly reason: string
    }

/** One running server, with the file a tool asked about open in it (its current content on disk). */
export interface ServerSession {
  /** The server's name (`typescript`, `pyright`, or a configured one). */
  readonly server: string
  /** The workspace root the server was started for. */
  readonly root: string
  /** The file's URI, as the server knows it. */
  readonly uri: string
  /** Sends one request; a server that does not answer in time is stopped and the request fails. */
  request<R = unknown>(method: string, params: unknown): Promise<R | null>
}

/** What one server answered, or why it could not. */
export type ServerAnswer<T> =
  | { readonly server: string; readonly ok: true; readonly value: T }
  | { readonly server: string; readonly ok: false; readonly error: string }

/** The diagnostics servers reported after files changed, by absolute path. */
export interface ChangeDiagnostics {
  /** The changed files a server answered for (an empty list: checked, nothing found). */
  readonly files: Readonly<Record<string, readonly Diagnostic[]>>
  /** Other files the same servers currently report diagnostics for (a caller's errors after a rename). */
  readonly others: Readonly<Record<string, readonly Diagnostic[]>>
}

/** The language servers of one project: started on first use, one per server and workspace root. */
export interface LanguageServers {
  /** Why no file can have a server (the config turned them all off); undefined when some may apply. */
  readonly off: string | undefined
  /**
   * Whether tools that change files wait for the diagnostics of what they changed. Off in a one-shot
   * process (`toolbelt call`), where every edit would start a server cold for seconds.
   */
  readonly afterEdits: boolean
  /** Which servers would handle `file` (by its extension and the config), or why none would. */
  lookup(file: string): ServerLookup
  /**
   * Runs `work` once per server for `file`: the server is started if needed and the file opened or
   * updated from disk first. A server that crashed is restarted once; after that, or when it hangs, its
   * answer says so.
   */
  withServers<T>(
    file: string,
    work: (session: ServerSession) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<ServerAnswer<T>[]>
  /**
   * After `files` changed on disk: tell their servers, then wait (bounded) for the diagnostics of each.
   * Never throws: a file no server handles, a server that fails or is slow, simply gives nothing.
   */
  diagnostics(files: readonly string[], signal?: AbortSignal): Promise<ChangeDiagnostics>
}
