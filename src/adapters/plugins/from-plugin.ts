import { z } from "zod"
import type { Registrable } from "../../runtime/registry/tool-set.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { isTool } from "../../runtime/tool/internal.ts"
import { pluginContext } from "./context.ts"
import type { ToolDefinition, ToolResult } from "./index.ts"

/** A custom tool or plugin tool that cannot be turned into a tool; the message says why. */
export class DefinitionError extends Error {
  override readonly name = "DefinitionError"
}

/**
 * Whether a value looks like a custom tool (opencode's test): an object with an `execute` function and
 * a `description` or `args`. Anything else a module exports is not a tool and is ignored.
 */
export function isToolDefinition(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false
  const candidate = value as Record<string, unknown>
  return typeof candidate.execute === "function" && ("description" in candidate || "args" in candidate)
}

/** Whether a value is already a toolbelt tool (`Tool.make` or `Tool.define`): registered as it is. */
export function isToolbeltTool(value: unknown): value is Registrable {
  return Tool.isInfo(value) || isTool(value)
}

export interface FromPluginOptions {
  /** The project directory and repository root the context reports (unless the call's `extra` has its own). */
  readonly directory: string
  readonly worktree: string
}

/**
 * Turns a custom tool in opencode's format (`tool({description, args, execute})`) into a toolbelt tool.
 *
 * 1. Arguments: a Zod raw shape becomes `z.object(args)` (validation and JSON Schema from Zod);
 *    JSON Schema fragments (the legacy form) are advertised as given, every one required, and only
 *    their presence is checked; `args` null or missing means no arguments.
 * 2. Context: toolbelt's call context plus `directory` and `worktree`; `ask` returns a Promise.
 * 3. Result: a string, or `{title?, output, metadata?, attachments?}`. The runtime bounds the output
 *    like any other tool's (the tool never claims to have truncated it itself).
 *
 * Throws `DefinitionError` when the definition is malformed.
 */
export function fromPlugin(name: string, definition: unknown, options: FromPluginOptions): Registrable {
  if (!isToolDefinition(definition)) {
    throw new DefinitionError(
      `${name} is not a tool: expected tool({ description, args, execute }) (an object with a description and an execute function).`,
    )
  }
  const def = definition as ToolDefinition & { args?: unknown }
  if (typeof def.description !== "string") {
    throw new DefinitionError(`${name}: description must be a string, got ${kind(def.description)}`)
  }
  const parameters = argsSchema(name, def.args)
  return Tool.define(name, {
    description: def.description,
    parameters,
    execute: async (args, ctx) => {
      const context = pluginContext(ctx, options)
      const returned = await def.execute(args as never, context)
      return toResult(name, returned)
    },
  })
}

/**
 * Checks what a `Tool.define` init returned (`{ description, parameters, execute }`), so a malformed
 * definition is reported with its tool instead of failing the tool's first listing. Throws
 * `DefinitionError`.
 */
export function checkDef(name: string, def: unknown): void {
  if (typeof def !== "object" || def === null) {
    throw new DefinitionError(
      `${name}: Tool.define's init returned ${kind(def)}; it must return { description, parameters, execute }`,
    )
  }
  const { description, parameters, execute } = def as Record<string, unknown>
  if (typeof description !== "string") {
    throw new DefinitionError(`${name}: description must be a string, got ${kind(description)}`)
  }
  if (!isZod4(parameters) && isZod3(parameters)) {
    throw new DefinitionError(
      `${name}: parameters is a Zod 3 schema; use Zod 4 (import z from "zod" resolves to it).`,
    )
  }
  if (!isZod4(parameters)) {
    throw new DefinitionError(
      `${name}: parameters must be a Zod schema (z.object({...})), got ${kind(parameters)}`,
    )
  }
  if (typeof execute !== "function") {
    throw new DefinitionError(`${name}: execute must be a function, got ${kind(execute)}`)
  }
}

/** The input codec of a custom tool's `args`. */
function argsSchema(name: string, args: unknown): z.ZodType {
  if (args === undefined || args === null) return z.object({})
  if (typeof args !== "object" || Array.isArray(args)) {
    throw new DefinitionError(`${name}: args must be an object of Zod schemas (or null), got ${kind(args)}`)
  }
  const entries = Object.entries(args as Record<string, unknown>)
  const zod: string[] = []
  const fragments: string[] = []
  for (const [key, value] of entries) {
    if (isZod4(value)) zod.push(key)
    else if (isZod3(value)) {
      throw new DefinitionError(
        `${name}: args.${key} is a Zod 3 schema; use Zod 4 (tool.schema, or import { z } from "zod" v4).`,
      )
    } else if (
      typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      !("~standard" in value)
    ) {
      fragments.push(key)
    } else {
      throw new DefinitionError(
        `${name}: args.${key} must be a Zod schema (tool.schema.string(), ...) or a JSON Schema object, got ${kind(value)}`,
      )
    }
  }
  if (zod.length && fragments.length) {
    throw new DefinitionError(
      `${name}: args mixes Zod schemas (${zod.join(", ")}) and JSON Schema fragments (${fragments.join(", ")}); use Zod for all of them.`,
    )
  }
  if (!fragments.length) return z.object(args as z.ZodRawShape)
  // Legacy: the fragments are the JSON Schema; every argument is required and only its presence is checked.
  const shape: Record<string, z.ZodType> = {}
  for (const [key, fragment] of entries) {
    shape[key] = z
      .unknown()
      .refine((value) => value !== undefined, "Required")
      .meta(fragment as Record<string, unknown>)
  }
  return z.looseObject(shape)
}

function isZod4(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_zod" in value
}

function isZod3(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    "_def" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  )
}

/** A custom tool's return value as a v1 result; anything else is a bug in the tool. */
export function toResult(name: string, returned: unknown): Tool.Result {
  if (typeof returned === "string") return { output: returned } as Tool.Result
  if (
    typeof returned === "object" &&
    returned !== null &&
    typeof (returned as ToolResult).output === "string"
  ) {
    const result = returned as ToolResult
    const metadata: Record<string, unknown> = isRecord(result.metadata) ? { ...result.metadata } : {}
    // The runtime bounds the output and records `truncated` itself; a tool never claims it.
    delete metadata.truncated
    return {
      ...(typeof result.title === "string" ? { title: result.title } : {}),
      output: result.output,
      metadata,
      ...(result.attachments ? { attachments: result.attachments } : {}),
    } as Tool.Result
  }
  throw new TypeError(
    `The custom tool ${name} returned ${kind(returned)}; it must return a string or { output: string, title?, metadata?, attachments? }`,
  )
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function kind(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "object") return "an object"
  return typeof value === "string" ? `a string (${JSON.stringify(value).slice(0, 40)})` : typeof value
}
