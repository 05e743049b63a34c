// What a listing leaves out unless asked: apart from the walk, so the tool's description names it
// without loading the walk (and its ignore-file and glob engines) at every start-up.

/** Directories never listed: dependencies, VCS data, build output, caches, virtual environments. */
export const DEFAULT_IGNORED_DIRECTORIES: ReadonlySet<string> = new Set([
  "node_modules",
  "__pycache__",
  ".git",
  "dist",
  "build",
  "target",
  "vendor",
  "bin",
  "obj",
  ".idea",
  ".vscode",
  ".zig-cache",
  "zig-out",
  ".coverage",
  "coverage",
  "tmp",
  "temp",
  ".cache",
  "cache",
  "logs",
  ".venv",
  "venv",
  "env",
])
