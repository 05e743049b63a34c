import { z } from "zod"
import { type ModelContent, parseDataUrl, text } from "../../platform/text/content.ts"
import type { Context, InitContext, Result } from "./context.ts"
import type { Annotations, Availability, Declarations, Offer, Paging, Projection } from "./internal.ts"
import type { SchemaSource } from "./schema-source.ts"
import { type AnyTool, makeWith } from "./tool.ts"

/** What a v1 tool's `init` returns. */
export interface Def<
  P extends z.ZodType = z.ZodType,
  M extends Record<string, unknown> = Record<string, any>,
> {
  readonly description: string
  /** The input schema, or a keyed one built on first use (`Tool.schema`; the built-in tools' `builtinSchema`). */
  readonly parameters: P | SchemaSource<P>
  execute(args: z.output<P>, ctx: Context): Promise<Result<M>>
  formatValidationError?(error: z.ZodError): string
  /**
   * Whether this result is a look at something still changing (a running job's state): the loop guard
   * then never counts the call as a repeat (see `Tool.make`'s `pollable`).
   */
  pollable?(result: Result<M>): boolean
}

export type Init<P extends z.ZodType, M extends Record<string, unknown>> =
  | ((ctx?: InitContext) => Promise<Def<P, M>> | Def<P, M>)
  | Def<P, M>

/** A v1 tool: an id and an (agent-aware) initialiser. */
export interface Info<
  P extends z.ZodType = z.ZodType,
  M extends Record<string, unknown> = Record<string, any>,
> {
  readonly id: string
  init(ctx?: InitContext): Promise<Def<P, M>>
  readonly available?: (env: Availability) => Offer
  readonly annotations?: Annotations
  readonly permission?: string
  readonly paging?: Paging
}

export type AnyInfo = Info<any, any>

/**
 * Defines a v1 tool (`Tool.define`): sugar over `Tool.make`. `init` may be a function of the agent or
 * a static object; every init returns a fresh object and the definition itself is never mutated.
 */
export function define<P extends z.ZodType, M extends Record<string, unknown> = Record<string, any>>(
  id: string,
  init: Init<P, M>,
  options?: Declarations,
): Info<P, M> {
  return Object.freeze({
    id,
    async init(ctx?: InitContext): Promise<Def<P, M>> {
      const def = typeof init === "function" ? await init(ctx) : init
      return { ...def }
    },
    ...(options?.available ? { available: options.available } : {}),
    ...(options?.annotations ? { annotations: options.annotations } : {}),
    ...(options?.permission ? { permission: options.permission } : {}),
    ...(options?.paging ? { paging: options.paging } : {}),
  })
}

export function isInfo(value: unknown): value is AnyInfo {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AnyInfo).id === "string" &&
    typeof (value as AnyInfo).init === "function"
  )
}

/** What a v1 tool returns, as a schema (its output codec). */
function buildResultSchema() {
  const filePart = z.object({
    type: z.literal("file").default("file"),
    mime: z.string(),
    url: z.string(),
    filename: z.string().optional(),
  })
  return z.object({
    title: z.string().optional(),
    output: z.string(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    attachments: z.array(filePart).optional(),
  })
}

type ResultSchema = ReturnType<typeof buildResultSchema>
let resultSchema: ResultSchema | undefined

/** The result schema, built at the first tool initialised rather than when this module is evaluated (every start evaluates it). */
function theResultSchema(): ResultSchema {
  resultSchema ??= buildResultSchema()
  return resultSchema
}

const RESULT_KEYS = new Set(["title", "output", "metadata", "attachments"])
const FILE_PART_KEYS = new Set(["type", "mime", "url", "filename"])

/**
 * A v1 result as its codec encodes it, when it plainly is one: only the codec's keys, each of its
 * type, every attachment a file part that names its type. The codec would give an equal object;
 * checking by hand spares building it (a one-shot `toolbelt call` paid 2 ms for that) and running
 * it on every call. Anything else (undefined) goes to the codec, which says what is wrong.
 */
function plainResult(value: unknown): unknown {
  if (!isPlainObject(value)) return undefined
  for (const key of Object.keys(value)) if (!RESULT_KEYS.has(key)) return undefined
  if (typeof value.output !== "string") return undefined
  if (value.title !== undefined && typeof value.title !== "string") return undefined
  if (value.metadata !== undefined && !isPlainObject(value.metadata)) return undefined
  if (value.attachments !== undefined) {
    if (!Array.isArray(value.attachments) || !value.attachments.every(plainFilePart)) return undefined
  }
  return value
}

function plainFilePart(part: unknown): boolean {
  if (!isPlainObject(part) || part.type !== "file") return false
  for (const key of Object.keys(part)) if (!FILE_PART_KEYS.has(key)) return false
  return (
    typeof part.mime === "string" &&
    typeof part.url === "string" &&
    (part.filename === undefined || typeof part.filename === "string")
  )
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Turns an initialised v1 definition into the one internal representation. */
export function fromDef(def: Def, options?: Declarations): AnyTool {
  return makeWith(
    {
      description: def.description,
      input: def.parameters,
      output: theResultSchema,
      encodePlain: plainResult,
      execute: (args, ctx) => def.execute(args, ctx) as Promise<z.output<ResultSchema>>,
      ...(def.formatValidationError ? { formatValidationError: def.formatValidationError.bind(def) } : {}),
      ...(def.pollable
        ? {
            pollable: (_decoded: unknown, encoded: unknown) => {
              const result = encoded as z.output<ResultSchema>
              return def.pollable!({ ...result, title: result.title ?? "", metadata: result.metadata ?? {} })
            },
          }
        : {}),
      ...(options?.available ? { available: options.available } : {}),
      ...(options?.annotations ? { annotations: options.annotations } : {}),
      ...(options?.permission ? { permission: options.permission } : {}),
      ...(options?.paging ? { paging: options.paging } : {}),
    },
    (_decoded, encoded) => projectResult(encoded as z.input<ResultSchema>),
  )
}

/** The projection of a v1 result: its text, its attachments as media, its title and metadata. */
export function projectResult(encoded: z.input<ResultSchema>): Projection {
  const metadata = { ...(encoded.metadata ?? {}) }
  const attachments = (encoded.attachments ?? []).map((part) => ({ ...part, type: "file" as const }))
  const content: ModelContent[] = [text(encoded.output)]
  for (const part of attachments) {
    const media = parseDataUrl(part.url)
    if (media) content.push({ type: "media", mime: media.mime, data: media.data })
  }
  return {
    content,
    ...(encoded.title !== undefined ? { title: encoded.title } : {}),
    metadata,
    attachments,
    selfBounded: metadata.truncated !== undefined,
  }
}
