// The helper for writing custom tools and plugins: `import { tool } from "agent-toolbelt/plugin"`.
//
// A custom tool is a file in `.toolbelt/tools/` (or `.opencode/tools/`) exporting `tool({...})`. The
// format is opencode's, so a file written for opencode (`import { tool } from "@opencode-ai/plugin"`)
// runs unchanged: toolbelt resolves that import to this module. Keep this module free of runtime
// imports other than zod: it is loaded by Node directly, from wherever the user's file lives.
import { z } from "zod"
import type { HookMap } from "../../runtime/hooks/hooks.ts"
import type { AnyInfo, AnyTool } from "../../runtime/tool/index.ts"

/** What a custom tool's `execute` receives. */
export interface ToolContext {
  readonly sessionID: string
  readonly messageID: string
  readonly agent: string
  readonly callID: string
  /** The project directory. */
  readonly directory: string
  /** The repository root (the project directory when it is not in a repository). */
  readonly worktree: string
  /** Aborted when the call is cancelled: stop work and return (or throw) promptly. */
  readonly abort: AbortSignal
  /**
   * Live progress for UIs while the call runs: `{ title, metadata }`, or the fields themselves
   * (`{ progress: 50 }`, as the spec writes it), which become the metadata.
   */
  metadata(input: { title?: string; metadata?: Record<string, unknown>; [field: string]: unknown }): void
  /**
   * Asks the permission service (the project's rules, then the person supervising). Resolves when
   * allowed; rejects when denied or rejected (let it propagate: the call then fails with the reason).
   */
  ask(input: {
    permission: string
    patterns: string[]
    always?: string[]
    metadata?: Record<string, unknown>
  }): Promise<void>
}

/** A file attached to a result (images, PDFs): a MIME type and a `data:` or file URL. */
export interface ToolAttachment {
  readonly type: "file"
  readonly mime: string
  readonly url: string
  readonly filename?: string
}

/** What `execute` may return instead of a plain string. */
export interface ToolResult {
  readonly title?: string
  readonly output: string
  readonly metadata?: Record<string, unknown>
  readonly attachments?: readonly ToolAttachment[]
}

/** A custom tool: its arguments are a Zod raw shape (`{ path: tool.schema.string() }`). */
export interface ToolDefinition<Args extends z.ZodRawShape = z.ZodRawShape> {
  readonly description: string
  /** Omitted or null: the tool takes no arguments. */
  readonly args?: Args | null
  execute(
    args: z.infer<z.ZodObject<Args>>,
    context: ToolContext,
  ): Promise<string | ToolResult> | string | ToolResult
}

/** Declares a custom tool. Returns the definition unchanged; it only gives `execute` its types. */
export function tool<Args extends z.ZodRawShape>(input: ToolDefinition<Args>): ToolDefinition<Args> {
  return input
}

/** Zod, for writing `args`: `tool.schema.string().describe("...")`. */
tool.schema = z

/** What a plugin receives when it is loaded for a project. */
export interface PluginInput {
  readonly directory: string
  readonly worktree: string
}

/** What a plugin returns: hooks by name, and tools by name (`tool({...})`, or `Tool.make`/`Tool.define`). */
export type PluginHooks = Partial<HookMap> & {
  readonly tool?: Readonly<Record<string, ToolDefinition<any> | AnyTool | AnyInfo>>
}

/** A plugin: every function a plugin module exports is called once per project. */
export type Plugin = (input: PluginInput) => PluginHooks | undefined | Promise<PluginHooks | undefined>
