// The path a file tool's call is about, in the forms the tool needs at its start: where it works, how the
// call shows it, and, for a tool that writes, where the write will really land.
import type { Context } from "../../runtime/tool/context.ts"
import { services } from "../../runtime/tool/services.ts"
import { checkExternalDirectory } from "./external-directory.ts"
import { relativePath, resolvePath } from "./paths.ts"

export interface CallPath {
  /** Where the tool works: the given path resolved against the project directory. */
  readonly filepath: string
  /** How the call shows it: relative to the worktree, as the call's title and its permission pattern. */
  readonly title: string
}

export interface PathToWrite extends CallPath {
  /**
   * The canonical path `external_directory` was decided on: where a write to `filepath` lands. Passed to
   * `writeFileAtomic` (`expected`), it refuses a write that a symlink planted since would redirect.
   */
  readonly resolved: string | undefined
}

/** The path a call names (absolute, or relative to the project), resolved, and as the call shows it. */
export function callPath(ctx: Pick<Context, "extra">, path: string): CallPath {
  const { directory, worktree } = services(ctx)
  const filepath = resolvePath(directory, path)
  return { filepath, title: relativePath(worktree, filepath) }
}

/**
 * The file a call will write: `callPath`, then guarded like every write, `external_directory` asked (kind
 * file) when the file lies outside the project.
 */
export async function pathToWrite(ctx: Context, path: string): Promise<PathToWrite> {
  const { filepath, title } = callPath(ctx, path)
  const { resolved } = await checkExternalDirectory(ctx, filepath, { kind: "file" })
  return { filepath, title, resolved }
}
