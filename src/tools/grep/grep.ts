import { stat } from "node:fs/promises"
import { resolve } from "node:path"
import { z } from "zod"
import type { GrepMode } from "../../platform/search/index.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { READS_ONLY } from "../kit/declarations.ts"
import { assertExternalDirectory } from "../kit/external-directory.ts"
import { loadText } from "../kit/load-text.ts"
import { formatGrep, type OutputMode } from "./format.ts"

/** Matching lines (content mode) or files (the other modes) shown at most. */
export const LIMIT = 100
/** Context lines allowed on each side. */
export const MAX_CONTEXT = 50

const contextLines = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_CONTEXT)
    .optional()
    .describe(`${what} (content mode only; at most ${MAX_CONTEXT}).`)

const parameters = builtinSchema("grep", () =>
  z.object({
    pattern: z
      .string()
      .describe(
        'The regular expression to search for, in ripgrep (Rust) syntax: "log.*Error", "function\\s+\\w+", "TODO|FIXME". Set fixedStrings to search for the text literally.',
      ),
    path: z
      .string()
      .optional()
      .describe(
        "A directory to search recursively, or one file to search alone; absolute or relative to the project directory. Default: the project directory.",
      ),
    include: z
      .string()
      .optional()
      .describe(
        'Only search files matching this glob: "*.js", "*.{ts,tsx}", "src/**/*.py". Without "/" it matches file names at any depth.',
      ),
    outputMode: z
      .enum(["content", "files_with_matches", "count"])
      .optional()
      .describe(
        '"content" (default): the matching lines, "Line N: text" under each file; "files_with_matches": only the paths of matching files; "count": matching lines per file.',
      ),
    ignoreCase: z.boolean().optional().describe("Match letters in any case (like grep -i)."),
    fixedStrings: z
      .boolean()
      .optional()
      .describe("Treat pattern as plain text, not a regular expression (like grep -F)."),
    before: contextLines("Lines of context to show before each match"),
    after: contextLines("Lines of context to show after each match"),
    context: contextLines(
      "Lines of context to show before and after each match; before and after override it",
    ),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface GrepMetadata extends Record<string, unknown> {
  /** Matching lines in all files searched. */
  matches: number
  /** Files with a match. */
  files: number
  /** Matching lines (content) or files (other modes) shown. */
  shown: number
  /** Results that exist but are not shown. */
  truncated: boolean
  timedOut: boolean
  outputMode: OutputMode
  backend: "ripgrep" | "fallback"
}

const MODES: Record<OutputMode, GrepMode> = {
  content: "content",
  files_with_matches: "files",
  count: "count",
}

/**
 * The `grep` tool: the lines of files matching a regular expression, newest files first.
 *
 * 1. Ask `grep` for the pattern (always `*`); an empty pattern is refused first.
 * 2. Resolve `path` against the project directory (default: the project directory).
 * 3. Ask `external_directory` when it is outside the project (for a file: its directory).
 * 4. Search with the search backend (ripgrep, or the in-process fallback): a directory recursively
 *    (ignore files respected, hidden files included, binary files and `.git` skipped), a file alone. An
 *    invalid regex fails naming the problem. The first 100 matching lines (or files) are kept; the totals
 *    count everything searched.
 * 5. Shape (`format.ts`): grouped by file, `Line N: text`, lines cut at 2000 characters, the totals, and
 *    how to narrow when results were dropped or the time limit (`extra.searchTimeoutMs`, 30 s) was hit.
 */
export const GrepTool = Tool.define<Parameters, GrepMetadata>(
  "grep",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // 1. Ask.
      if (params.pattern === "")
        throw new Tool.ToolFailure("pattern is required: give the regular expression to search for.")
      await ctx.ask({
        permission: "grep",
        patterns: [params.pattern],
        always: ["*"],
        metadata: { pattern: params.pattern, path: params.path, include: params.include },
      })

      // 2. Resolve.
      const project = projectDirectory(ctx.extra)
      const target = resolve(project, params.path ?? ".")
      const stats = await stat(target).catch(() => undefined)

      // 3. Guard.
      await assertExternalDirectory(ctx, target, { kind: stats?.isDirectory() ? "directory" : "file" })

      // 4. Search.
      if (!stats)
        throw new Tool.ToolFailure(`Path not found: ${target}. Check the path, or use glob to find the file.`)
      if (!stats.isDirectory() && !stats.isFile()) {
        throw new Tool.ToolFailure(
          `Cannot search ${target}: it is not a regular file or a directory (a device, FIFO or socket). Give a file or a directory.`,
        )
      }
      const outputMode = params.outputMode ?? "content"
      // The search engine is loaded at the first search, not at every start-up (see ARCHITECTURE.md).
      const { SearchError, SearchPatternError, searchBackend, searchSettings } = await import(
        "../../platform/search/index.ts"
      )
      const settings = searchSettings(ctx.extra)
      const backend = searchBackend(settings.choice)
      let result: Awaited<ReturnType<typeof backend.grep>>
      try {
        result = await backend.grep(target, {
          pattern: params.pattern,
          fixedStrings: params.fixedStrings ?? false,
          ignoreCase: params.ignoreCase ?? false,
          ...(params.include ? { include: [params.include] } : {}),
          before: params.before ?? params.context ?? 0,
          after: params.after ?? params.context ?? 0,
          mode: MODES[outputMode],
          limit: LIMIT,
          signal: ctx.abort,
          timeoutMs: settings.timeoutMs,
        })
      } catch (error) {
        if (error instanceof SearchPatternError) {
          throw new Tool.ToolFailure(
            `${error.message} Escape special characters with a backslash (\\( \\[ \\{ \\. \\*), or set fixedStrings to true to search for the text literally.`,
          )
        }
        if (error instanceof SearchError) throw new Tool.ToolFailure(error.message)
        throw error
      }

      // 5. Shape.
      const formatted = formatGrep(result, outputMode, seconds(settings.timeoutMs))
      return {
        title: params.pattern,
        output: formatted.output,
        metadata: {
          matches: result.totalMatches,
          files: result.totalFiles,
          shown: formatted.shown,
          truncated: formatted.truncated,
          timedOut: result.timedOut,
          outputMode,
          backend: backend.name,
        },
      }
    },
  }),
  { annotations: READS_ONLY },
)

function projectDirectory(extra: Readonly<Record<string, unknown>>): string {
  const directory = extra.directory
  if (typeof directory !== "string" || directory === "") {
    throw new Error("grep needs ctx.extra.directory (the project directory).")
  }
  return directory
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`
}
