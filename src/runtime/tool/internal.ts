import type { z } from "zod"
import type { FilePart, ModelContent } from "../../platform/text/content.ts"
import type { Paging } from "../../platform/text/hint.ts"
import type { Context } from "./context.ts"
import { manifestJsonSchema, toInputJsonSchema } from "./schema-source.ts"

/** Where a call is being prepared: tools declare in which of these they are offered. */
export interface Availability {
  readonly providerID?: string
  readonly modelID?: string
  readonly agent?: string
  /** The surface asking: `cli`, `mcp`, `server`, `sdk`, ... */
  readonly client?: string
  readonly flags?: Readonly<Record<string, string | boolean | undefined>>
  /**
   * What a call would get in `ctx.extra` (the project's config, the environment, services): a tool
   * that needs something configured (a search provider) decides from it whether it is offered.
   */
  readonly extra?: Readonly<Record<string, unknown>>
  /**
   * Whether a person can answer questions where the tools are offered: true on a terminal or for an MCP
   * client that shows forms; false where nobody can (no terminal, a client without elicitation), so a
   * tool that needs an answer is not offered. Undefined: not known (a library user answers through the
   * bus and `reply`).
   */
  readonly interactive?: boolean
}

/**
 * Whether a tool is offered: `true`, `false` (silently, like `invalid`), or not offered for a reason
 * the user is shown (`toolbelt tools` lists it: "no search provider is configured: ...").
 */
export type Offer = boolean | { readonly reason: string }

/** Whether a tool whose declaration is `available` is offered in `env`, and if not, the reason it gives. */
export function offerFor(
  available: ((env: Availability) => Offer) | undefined,
  env: Availability,
): { offered: boolean; reason?: string } {
  if (!available) return { offered: true }
  const offer = available(env)
  if (typeof offer === "boolean") return { offered: offer }
  return { offered: false, reason: offer.reason }
}

/** Hints surfaces pass on (MCP annotations, UIs); they grant nothing. */
export interface Annotations {
  readonly readOnly?: boolean
  readonly destructive?: boolean
  readonly idempotent?: boolean
  readonly openWorld?: boolean
}

/** What projection gives settlement: model content plus what the part records. */
export interface Projection {
  readonly content: readonly ModelContent[]
  readonly title?: string
  readonly metadata?: Record<string, unknown>
  /** Files as the tool returned them (v1 results); otherwise derived from media content. */
  readonly attachments?: readonly FilePart[]
  /** Structured output (the encoded value) when the tool returned one. */
  readonly structured?: unknown
  /** A v1 tool that set `metadata.truncated` bounded its own output; settlement passes it through. */
  readonly selfBounded?: boolean
}

/** What a tool declares about itself besides its schema and executor; read by the runtime, never by the model. */
export interface Declarations {
  /** Where the tool is offered (feature flags, provider/model rules, client kind). */
  readonly available?: (env: Availability) => Offer
  readonly annotations?: Annotations
  /**
   * The permission key the tool belongs to, when not its own name: the tool is hidden from the model
   * whenever that key's last rule is `* deny`. A tool that only serves another (reading a background
   * job of `bash`) names that tool's key, so denying `bash` hides it too.
   */
  readonly permission?: string
  /** How the tool reads a file page by page: the hint after a truncated result names a call to it. */
  readonly paging?: Paging
}

export type { Paging }

export interface ToolInternals {
  readonly description: string
  /** The input schema (a keyed one is built here, on the first read). */
  readonly input: z.ZodType
  /** The key of a built-in tool's input schema (`builtinSchema`): its JSON Schema may come from the build's manifest. */
  readonly manifestKey: string | undefined
  readonly output: z.ZodType | undefined
  /**
   * The output codec's shortcut: the encoded value when the value plainly is one (what the codec would
   * give for it), else undefined, and the codec decides and words what is wrong.
   */
  readonly encodePlain: ((value: unknown) => unknown) | undefined
  readonly execute: (input: unknown, ctx: Context) => unknown
  readonly project: (input: unknown, encoded: unknown) => Projection
  readonly formatValidationError: ((error: z.ZodError) => string) | undefined
  readonly available: ((env: Availability) => Offer) | undefined
  readonly annotations: Annotations
  /** The permission key the tool belongs to (see `Declarations.permission`); undefined: its own name. */
  readonly permission: string | undefined
  /** How the tool reads a file page by page, when it does (see `Paging`). */
  readonly paging: Paging | undefined
  /** Whether a result is a look at something still changing (see `MakeConfig.pollable`). */
  readonly pollable: ((decoded: unknown, encoded: unknown) => boolean) | undefined
  jsonSchema?: Record<string, unknown>
}

// Kept under a global symbol, so the tools of every copy of this module are known to every other: a
// plugin that imports the package while the command line runs its bundle (or a second install of the
// package) makes its tools with another copy than the runtime that checks them.
const REGISTRY = Symbol.for("agent-toolbelt.tool-internals")
const shared = globalThis as { [REGISTRY]?: WeakMap<object, ToolInternals> }
shared[REGISTRY] ??= new WeakMap<object, ToolInternals>()
const registry = shared[REGISTRY]

export function attach(handle: object, internals: ToolInternals): void {
  registry.set(handle, internals)
}

/** The private side of an opaque tool; only the runtime calls this. */
export function internals(tool: object): ToolInternals {
  const found = registry.get(tool)
  if (!found) throw new TypeError("Not a tool: build tools with Tool.make or Tool.define.")
  return found
}

export function isTool(value: unknown): boolean {
  return typeof value === "object" && value !== null && registry.has(value)
}

/**
 * The model-facing JSON Schema of a tool's input (computed once per tool). A built-in tool's comes from
 * the build's manifest when there is one, without building the schema.
 */
export function inputJsonSchema(tool: object): Record<string, unknown> {
  const own = internals(tool)
  own.jsonSchema ??=
    (own.manifestKey === undefined ? undefined : manifestJsonSchema(own.manifestKey)) ??
    toInputJsonSchema(own.input)
  return own.jsonSchema
}
