// What toolbelt knows about one language server: which files it serves, where its workspace root is,
// and how to start it there.

/** How one server is started for one root: the program and its arguments. */
export interface Launch {
  /** The program (an absolute path once found) and its arguments. */
  readonly argv: readonly string[]
  /** Settings the launch needs, under the configured `initialization` (which wins key by key). */
  readonly initialization?: Readonly<Record<string, unknown>>
}

/** A server whose program was not found: what to tell the model instead. */
export interface NotInstalled {
  readonly missing: string
}

/** Where a launch is resolved: the workspace root, the project directory, and the environment. */
export interface LaunchPlace {
  readonly root: string
  readonly directory: string
  readonly env: Readonly<Record<string, string | undefined>>
  /**
   * Whether the project's own programs (`node_modules/.bin`, its TypeScript) may run: only in a project a
   * person trusted. False: PATH and the user's own installs only. Default true.
   */
  readonly projectPrograms?: boolean
  /** The server's configured `initialization`. */
  readonly initialization?: Readonly<Record<string, unknown>>
}

export interface ServerDefinition {
  /** Its name in config (`"lsp": {"typescript": false}`) and in messages. */
  readonly id: string
  /** The file extensions it serves, with their dot, lower case (`.ts`). */
  readonly extensions: readonly string[]
  /**
   * Files or directories whose nearest directory is the workspace root (`*.csproj` matches by extension);
   * with none found up to the project directory, the root is the project directory.
   */
  readonly rootMarkers: readonly string[]
  /** The program and arguments for a root, or what is missing. */
  launch(place: LaunchPlace): Launch | NotInstalled
  /** Environment variables added to toolbelt's for the server. */
  readonly env?: Readonly<Record<string, string>>
  /** Sent as `initializationOptions`, and as the settings the server asks for (`workspace/configuration`). */
  readonly initialization?: Readonly<Record<string, unknown>>
}

export function isLaunch(value: Launch | NotInstalled): value is Launch {
  return "argv" in value
}
