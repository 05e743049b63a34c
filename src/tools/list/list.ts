import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { services } from "../../runtime/tool/services.ts"
import { assertExternalDirectory } from "../kit/external-directory.ts"
import { loadText } from "../kit/load-text.ts"
import { relativePath, resolvePath, statOrUndefined } from "../kit/paths.ts"
import { DEFAULT_IGNORED_DIRECTORIES } from "./ignored.ts"
import { renderTree } from "./tree.ts"

/** Most entries (files and directories) one listing shows. */
export const LIST_LIMIT = 100

const parameters = builtinSchema("list", () =>
  z.object({
    path: z
      .string()
      .optional()
      .describe(
        "The absolute path to the directory to list (a path relative to the project also works); defaults to the project directory",
      ),
    ignore: z
      .array(z.string())
      .optional()
      .describe(
        "Glob patterns to leave out: a pattern without '/' matches names at any depth (e.g. '*.log'), one with '/' the path relative to the listed directory (e.g. 'src/generated/**')",
      ),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface ListMetadata extends Record<string, unknown> {
  /** Entries shown (files and directories). */
  count: number
  /** True only when entries were left out because of the cap. */
  truncated: boolean
}

/**
 * Lists a directory as an indented tree, leaving out what git ignores and the usual bulky directories.
 *
 * 1. Resolve the path (default: the project) and stat it.
 * 2. Guard paths outside the project (`external_directory`, kind directory); ask `list` for the path
 *    relative to the worktree, always `*`.
 * 3. Missing or a file: a failure saying what to do. Otherwise walk breadth first up to 100 entries.
 * 4. Render the tree; when entries were left out, say so (`truncated`) and how to narrow the listing.
 */
export const ListTool = Tool.define<Parameters, ListMetadata>(
  "list",
  () => ({
    description: loadText(import.meta.url, "description.txt").replace(
      "{ignored}",
      [...DEFAULT_IGNORED_DIRECTORIES].join(", "),
    ),
    parameters,
    async execute(params, ctx) {
      const { directory, worktree } = services(ctx)

      // 1. Resolve the path (default: the project) and see what is there.
      const dirpath = resolvePath(directory, params.path ?? ".")
      const title = relativePath(worktree, dirpath)
      const stats = await statOrUndefined(dirpath)

      // 2. Guard paths outside the project, then ask `list` for the path relative to the worktree.
      await assertExternalDirectory(ctx, dirpath, {
        kind: stats && !stats.isDirectory() ? "file" : "directory",
      })
      await ctx.ask({ permission: "list", patterns: [title], always: ["*"], metadata: { path: dirpath } })

      // 3. Walk the tree, breadth first, up to the cap.
      if (!stats) throw new Tool.ToolFailure(`Directory not found: ${dirpath}`)
      if (!stats.isDirectory())
        throw new Tool.ToolFailure(
          `${dirpath} is a file, not a directory. Use the read tool to read a file, or list the directory that holds it.`,
        )
      // The walk (ignore files, globs) is loaded at the first listing, not at every start-up.
      const { walk } = await import("./walk.ts")
      const { entries, truncated } = await walk({
        root: dirpath,
        worktree,
        ignore: params.ignore ?? [],
        limit: LIST_LIMIT,
        signal: ctx.abort,
      })

      // 4. Shape the result: the tree, and how to narrow it when it was cut.
      let output = renderTree(dirpath, entries)
      if (entries.length === 0) output += "\n(empty directory, or every entry is ignored)"
      if (truncated)
        output +=
          `\n\n(Showing the first ${LIST_LIMIT} entries, breadth first; more were left out. ` +
          "List a subdirectory, or pass ignore patterns, to see the rest.)"
      return { title, output, metadata: { count: entries.length, truncated } }
    },
  }),
  { annotations: { readOnly: true } },
)
