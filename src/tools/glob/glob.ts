import { stat } from "node:fs/promises"
import { isAbsolute, relative, resolve, sep } from "node:path"
import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { READS_ONLY } from "../kit/declarations.ts"
import { assertExternalDirectory } from "../kit/external-directory.ts"
import { loadText } from "../kit/load-text.ts"

/** Files listed at most. */
export const LIMIT = 100

const parameters = builtinSchema("glob", () =>
  z.object({
    pattern: z
      .string()
      .describe(
        'The glob to match file paths against, relative to `path`: "**/*.ts", "src/**/*.test.ts", "**/package.json". A glob without "/" matches file names at any depth ("*.md" = "**/*.md").',
      ),
    path: z
      .string()
      .optional()
      .describe(
        'The directory to search in, absolute or relative to the project directory. Omit it to search the project directory (do not pass "undefined" or "null").',
      ),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface GlobMetadata extends Record<string, unknown> {
  /** Files listed. */
  count: number
  /** Files that matched (found before the time limit, when it was reached). */
  total: number
  /** Files matched that are not listed. */
  truncated: boolean
  timedOut: boolean
  backend: "ripgrep" | "fallback"
}

/**
 * The `glob` tool: the files whose path matches a glob, most recently modified first.
 *
 * 1. Ask `glob` for the pattern (always `*`).
 * 2. Resolve `path` against the project directory (default: the project directory itself).
 * 3. Ask `external_directory` when it is outside the project.
 * 4. The path must be an existing directory. List with the search backend (ripgrep, or the in-process
 *    fallback): ignore files respected, hidden files included, `.git` never; newest 100 kept.
 * 5. Shape: one absolute path per line; when more matched, how many and how to narrow; when the time
 *    limit (`extra.searchTimeoutMs`, default 30 s) was reached, that the list is partial.
 */
export const GlobTool = Tool.define<Parameters, GlobMetadata>(
  "glob",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // 1. Ask.
      if (params.pattern.trim() === "")
        throw new Tool.ToolFailure("pattern is required: give a glob such as **/*.ts.")
      await ctx.ask({
        permission: "glob",
        patterns: [params.pattern],
        always: ["*"],
        metadata: { pattern: params.pattern, path: params.path },
      })

      // 2. Resolve.
      const project = projectDirectory(ctx.extra)
      const target = resolve(project, params.path ?? ".")

      // 3. Guard.
      await assertExternalDirectory(ctx, target, { kind: "directory" })

      // 4. List.
      const stats = await stat(target).catch(() => undefined)
      if (!stats) throw new Tool.ToolFailure(`Directory not found: ${target}`)
      if (!stats.isDirectory()) {
        throw new Tool.ToolFailure(
          `glob path must be a directory: ${target} is a file. Pass its directory as path, or use read to open the file.`,
        )
      }
      const pattern = relativePattern(params.pattern, target)
      // The search engine is loaded at the first search, not at every start-up (see ARCHITECTURE.md).
      const { listingBackend, SearchError, searchSettings } = await import("../../platform/search/index.ts")
      const settings = searchSettings(ctx.extra)
      const backend = listingBackend(settings.choice)
      let found: Awaited<ReturnType<typeof backend.files>>
      try {
        found = await backend.files(target, {
          pattern: [pattern],
          limit: LIMIT,
          signal: ctx.abort,
          timeoutMs: settings.timeoutMs,
        })
      } catch (error) {
        if (error instanceof SearchError) throw new Tool.ToolFailure(error.message)
        throw error
      }

      // 5. Shape.
      const count = found.files.length
      const truncated = found.total > count
      const lines = found.files.map((file) => file.path)
      if (count === 0) lines.push(found.timedOut ? "No files found before the time limit." : "No files found")
      if (truncated) {
        lines.push(
          "",
          `(Showing the ${count} most recently modified of ${found.total} matching files. Use a more specific pattern or path to narrow the results.)`,
        )
      }
      if (found.timedOut) {
        lines.push(
          "",
          `(The search stopped at its time limit of ${seconds(settings.timeoutMs)}: these are the files found so far. Use a more specific pattern or path.)`,
        )
      }
      return {
        title: displayPath(target, project),
        output: lines.join("\n"),
        metadata: { count, total: found.total, truncated, timedOut: found.timedOut, backend: backend.name },
      }
    },
  }),
  { annotations: READS_ONLY },
)

function projectDirectory(extra: Readonly<Record<string, unknown>>): string {
  const directory = extra.directory
  if (typeof directory !== "string" || directory === "") {
    throw new Error("glob needs ctx.extra.directory (the project directory).")
  }
  return directory
}

/** An absolute pattern inside the search directory becomes relative to it; elsewhere it is an error. */
function relativePattern(pattern: string, target: string): string {
  if (!isAbsolute(pattern)) return pattern
  const inside = relative(target, pattern)
  if (inside.startsWith("..") || isAbsolute(inside)) {
    throw new Tool.ToolFailure(
      `pattern must be relative to path: ${pattern} is not inside ${target}. Pass the directory as path and a relative glob as pattern.`,
    )
  }
  return inside.split(sep).join("/") || "**"
}

function displayPath(target: string, project: string): string {
  const inside = relative(project, target)
  if (inside === "") return "."
  return inside.startsWith("..") || isAbsolute(inside) ? target : inside
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`
}
