import { type Client, SdkError, SdkErrorCode } from "@modelcontextprotocol/client"
import type { McpPins } from "../../platform/store/mcp-pins.ts"
import { asSentence } from "../../platform/text/sentence.ts"
import type { Context } from "../../runtime/tool/context.ts"
import { ToolFailure } from "../../runtime/tool/failure.ts"
import type { Annotations } from "../../runtime/tool/internal.ts"
import { type AnyTool, make } from "../../runtime/tool/tool.ts"
import { errorText, type McpCallResult, modelContent } from "./content.ts"
import { changedFields, definitionOf, fingerprint, type ToolDefinition } from "./fingerprint.ts"
import { message } from "./open-client.ts"
import { inputCodec, normaliseInputSchema } from "./schema.ts"

/** The permission asked before a tool whose definition changed since it was approved runs again. */
export const DRIFT_PERMISSION = "mcp_drift"

/** A tool as a server lists it (`tools/list`). */
export interface ListedTool {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema?: unknown
  readonly annotations?: {
    readonly readOnlyHint?: boolean | undefined
    readonly destructiveHint?: boolean | undefined
    readonly idempotentHint?: boolean | undefined
    readonly openWorldHint?: boolean | undefined
    readonly [key: string]: unknown
  }
}

export interface McpToolOptions {
  readonly server: string
  /** The registered name: also the tool's permission key. */
  readonly name: string
  readonly tool: ListedTool
  /** The server's client at the time of the call (undefined once the server is gone). */
  readonly client: () => Client | undefined
  /** Per call; progress notifications restart it. */
  readonly timeoutMs: number
  readonly pins: McpPins
  readonly projectID: string
}

/** What a listed MCP tool becomes in toolbelt, with the fingerprint a pin compares. */
export interface McpTool {
  readonly tool: AnyTool
  readonly definition: ToolDefinition
  readonly fingerprint: string
}

/**
 * Builds the toolbelt tool for one MCP tool: the server's description and input schema, its
 * annotations as hints, and an executor that runs one call.
 *
 * A call:
 * 1. Asks the tool's own permission (`<server>_<tool>`, pattern `*`; "always" remembers `*`).
 * 2. Compares the tool's definition with the project's pin: none yet → this approval pins it; a
 *    different one → asks `mcp_drift` (pattern: the registered name, nothing remembered, metadata
 *    with both fingerprints, the fields that changed and both definitions) and re-pins after it is
 *    allowed; a rejection fails the call before anything reaches the server.
 * 3. Calls the tool with the per-server timeout, restarted by each progress notification (which
 *    goes to `ctx.metadata` as `{progress, total, message}`); aborting the call sends
 *    `notifications/cancelled` and the call ends interrupted.
 * 4. `isError` → `ToolFailure` with the tool's text; a timeout, a lost connection or a protocol
 *    error → `ToolFailure` saying which; otherwise the result (projected by `modelContent`).
 */
export function mcpTool(options: McpToolOptions): McpTool {
  const { server, name, tool, pins, projectID } = options
  const definition = definitionOf(tool)
  const print = fingerprint(definition)
  const made = make({
    description: tool.description ?? tool.title ?? "",
    input: inputCodec(normaliseInputSchema(tool.inputSchema)),
    annotations: annotationsOf(tool.annotations),
    execute: async (args: Record<string, unknown>, ctx: Context): Promise<McpCallResult> => {
      // 1. The tool's own permission.
      await ctx.ask({ permission: name, patterns: ["*"], always: ["*"] })

      // 2. Drift.
      const pinned = pins.get({ projectID, server, tool: tool.name })
      if (pinned && pinned.fingerprint !== print) {
        await ctx.ask({
          permission: DRIFT_PERMISSION,
          patterns: [name],
          always: [],
          metadata: {
            reason: "drift",
            server,
            tool: tool.name,
            old: pinned.fingerprint,
            new: print,
            changed: changedFields(pinned.definition, definition),
            before: pinned.definition,
            after: definition,
          },
        })
      }
      if (!pinned || pinned.fingerprint !== print) {
        pins.pin({ projectID, server, tool: tool.name, fingerprint: print, definition })
      }

      // 3. The call.
      const client = options.client()
      if (!client)
        throw new ToolFailure(
          `MCP server "${server}" is not connected; ${name} cannot run. Try again once it is (toolbelt tools says why a server failed).`,
        )
      let result: McpCallResult
      try {
        result = (await client.callTool(
          { name: tool.name, arguments: args },
          {
            signal: ctx.abort,
            timeout: options.timeoutMs,
            resetTimeoutOnProgress: true,
            onprogress: (progress) =>
              ctx.metadata({
                metadata: {
                  progress: progress.progress,
                  ...(progress.total !== undefined ? { total: progress.total } : {}),
                  ...(progress.message !== undefined ? { message: progress.message } : {}),
                },
              }),
          },
        )) as McpCallResult
      } catch (error) {
        // An abort is an interruption: settlement records it as such.
        if (ctx.abort.aborted) throw error
        throw callFailure(error, { server, name, timeoutMs: options.timeoutMs })
      }

      // 4. The result.
      if (result.isError) throw new ToolFailure(errorText(result))
      return result
    },
    toModelOutput: ({ output }) => modelContent(output),
  })
  return { tool: made, definition, fingerprint: print }
}

function callFailure(error: unknown, call: { server: string; name: string; timeoutMs: number }): ToolFailure {
  const { server, name, timeoutMs } = call
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) {
      return new ToolFailure(
        `${name} timed out: MCP server "${server}" sent no result and no progress for ${formatMs(timeoutMs)}. The call was cancelled. If the tool needs longer, raise "timeout" (ms) for "${server}" in the mcp config.`,
        { cause: error },
      )
    }
    if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected) {
      return new ToolFailure(
        `MCP server "${server}" disconnected before ${name} finished; what it did is unknown. Check before you call it again.`,
        { cause: error },
      )
    }
  }
  return new ToolFailure(`MCP server "${server}" could not run ${name}: ${asSentence(message(error))}`, {
    cause: error,
  })
}

function annotationsOf(hints: ListedTool["annotations"]): Annotations {
  if (!hints) return {}
  const out: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean; openWorld?: boolean } = {}
  if (typeof hints.readOnlyHint === "boolean") out.readOnly = hints.readOnlyHint
  if (typeof hints.destructiveHint === "boolean") out.destructive = hints.destructiveHint
  if (typeof hints.idempotentHint === "boolean") out.idempotent = hints.idempotentHint
  if (typeof hints.openWorldHint === "boolean") out.openWorld = hints.openWorldHint
  return out
}

function formatMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  if (ms % 1000 === 0) return `${ms / 1000} s`
  return `${ms} ms`
}
