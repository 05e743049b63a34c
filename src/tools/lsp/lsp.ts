import { pathToFileURL } from "node:url"
import type { Position } from "vscode-languageserver-types"
import { z } from "zod"
import * as Tool from "../../runtime/tool/index.ts"
import { builtinSchema } from "../../runtime/tool/schema-source.ts"
import { type ServiceExtra, services } from "../../runtime/tool/services.ts"
import { callPath } from "../kit/call-path.ts"
import { checkExternalDirectory } from "../kit/external-directory.ts"
import { loadText } from "../kit/load-text.ts"
import { statOrUndefined } from "../kit/paths.ts"
import { formatAnswers } from "./format-answer.ts"
import { type Answer, needsPosition, OPERATIONS, type Operation, runOperation } from "./operations.ts"
import { SourceText, utf16Offset } from "./source-text.ts"

const parameters = builtinSchema("lsp", () =>
  z.object({
    operation: z.enum(OPERATIONS).describe("What to ask the language server (see the tool description)."),
    filePath: z.string().describe("The file to ask about: absolute, or relative to the project directory."),
    line: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        "The line of the symbol, 1-based (as read numbers lines). Needed by every operation but documentSymbol and workspaceSymbol.",
      ),
    character: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("The column of the symbol in that line, 1-based, in characters (as an editor counts them)."),
    query: z
      .string()
      .optional()
      .describe('workspaceSymbol: the symbol name, or part of it, to search for ("" for all).'),
  }),
)
type Parameters = Tool.SchemaOf<typeof parameters>

export interface LspMetadata extends Record<string, unknown> {
  operation: Operation
  filePath: string
  line?: number
  character?: number
  /** The servers that answered. */
  servers: string[]
  /** Whether anything was found. */
  found: boolean
}

/**
 * The `lsp` tool: opencode's nine language-server operations, answered in text a model reads.
 *
 * 1. Resolve the file against the project; ask `external_directory` when it is outside.
 * 2. Ask `lsp` (always `*`), with the operation and where.
 * 3. The file must exist; a position, where the operation needs one, must be inside it; some server must
 *    handle the file's type (else the reason: none configured, or its program is not installed).
 * 4. Each server for the file runs the operation on it (started and synced first), the 1-based position
 *    sent 0-based in UTF-16 units as the protocol wants.
 * 5. Shape (format-answer.ts): locations as `path:line:col: source`, hovers as text, outlines indented,
 *    call hierarchies as trees; servers that failed are named with why. Nothing found says so.
 */
export const LspTool = Tool.define<Parameters, LspMetadata>(
  "lsp",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    async execute(params, ctx) {
      // 1. Resolve and guard.
      const { filepath, title } = callPath(ctx, params.filePath)
      await checkExternalDirectory(ctx, filepath, { kind: "file" })

      // 2. Ask.
      const where = whereMetadata(params, filepath)
      await ctx.ask({ permission: "lsp", patterns: ["*"], always: ["*"], metadata: where })

      // 3. Check the file, the position and the servers.
      const stats = await statOrUndefined(filepath)
      if (!stats?.isFile()) throw new Tool.ToolFailure(`File not found: ${filepath}`)
      const { directory, languageServers } = services(ctx)
      if (!languageServers)
        throw new Tool.ToolFailure(
          "No LSP server available: language servers run only inside a toolbelt (toolbelt call, mcp or serve, or createToolbelt). Call lsp through one of them.",
        )
      const lookup = languageServers.lookup(filepath)
      if (lookup.kind === "none") throw new Tool.ToolFailure(lookup.reason)
      const source = new SourceText(directory)
      const position = await protocolPosition(params, filepath, source)

      // 4. Ask each server.
      const answers = await languageServers.withServers(
        filepath,
        (session) =>
          runOperation({ operation: params.operation, session, position, query: params.query ?? "" }),
        ctx.abort,
      )
      const answered = answers.flatMap((answer) => (answer.ok ? [answer] : []))
      const failed = answers.flatMap((answer) => (answer.ok ? [] : [`${answer.server}: ${answer.error}`]))
      if (answered.length === 0)
        throw new Tool.ToolFailure(
          `The language server could not answer ${params.operation}.\n${failed.join("\n")}\n\nUse grep or read to find it without the language server.`,
        )

      // 5. Shape.
      const text = await formatAnswers(
        answered.map((answer) => answer.value as Answer),
        source,
      )
      const notes = failed.length ? `\n\n(${failed.length} server(s) failed: ${failed.join("; ")})` : ""
      return {
        title: titleOf(params, title),
        output: `${text || `No results found for ${params.operation}`}${notes}`,
        metadata: {
          operation: params.operation,
          filePath: filepath,
          ...(needsPosition(params.operation) ? { line: params.line, character: params.character } : {}),
          servers: answered.map((answer) => answer.server),
          found: text !== "",
        },
      }
    },
  }),
  { available: offered, annotations: { readOnly: true } },
)

/** Offered where a toolbelt runs language servers and the config has not turned them all off. */
function offered(env: Tool.Availability): Tool.Offer {
  const languageServers = (env.extra as ServiceExtra | undefined)?.languageServers
  if (!languageServers) return { reason: "language servers run only inside a toolbelt" }
  return languageServers.off ? { reason: languageServers.off } : true
}

type Params = z.infer<Parameters>

/** What the ask shows, as opencode: the operation, and the file and position where they matter. */
function whereMetadata(params: Params, filePath: string): Record<string, unknown> {
  if (params.operation === "workspaceSymbol")
    return { operation: params.operation, query: params.query ?? "" }
  if (params.operation === "documentSymbol") return { operation: params.operation, filePath }
  return { operation: params.operation, filePath, line: params.line, character: params.character }
}

function titleOf(params: Params, rel: string): string {
  if (params.operation === "workspaceSymbol") return `workspaceSymbol ${JSON.stringify(params.query ?? "")}`
  if (params.operation === "documentSymbol") return `documentSymbol ${rel}`
  return `${params.operation} ${rel}:${params.line}:${params.character}`
}

/** The 1-based position as the protocol wants it (0-based, UTF-16); a position outside the file fails. */
async function protocolPosition(params: Params, filepath: string, source: SourceText): Promise<Position> {
  if (!needsPosition(params.operation)) return { line: 0, character: 0 }
  if (params.line === undefined || params.character === undefined)
    throw new Tool.ToolFailure(
      `${params.operation} needs line and character: the 1-based position of the symbol in the file (put it on the symbol's name).`,
    )
  const lines = (await source.lines(pathToFileURL(filepath).href)) ?? []
  const text = lines[params.line - 1]
  if (text === undefined)
    throw new Tool.ToolFailure(
      `Line ${params.line} is past the end of ${filepath}, which has ${lines.length} line(s). Give the line of the symbol as read numbers it.`,
    )
  return { line: params.line - 1, character: utf16Offset(text, params.character) }
}
