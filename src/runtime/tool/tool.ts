import type { z } from "zod"
import { type ModelContent, text } from "../../platform/text/content.ts"
import type { Context } from "./context.ts"
import {
  type Annotations,
  type Availability,
  attach,
  type Offer,
  type Paging,
  type Projection,
} from "./internal.ts"
import { isSchemaSource, type SchemaSource } from "./schema-source.ts"

declare const brand: unique symbol

/**
 * An executable tool. Opaque: its schemas and executor are not fields; the registry reaches them
 * through the runtime only. A tool value has no name; it is named where it is registered.
 */
export interface Tool<Input = unknown, Output = unknown> {
  readonly [brand]: { readonly input: Input; readonly output: Output }
}

export type AnyTool = Tool<any, any>

export interface MakeConfig<I extends z.ZodType, O extends z.ZodType> {
  readonly description: string
  /** Input codec: execution sees the decoded value. */
  readonly input: I
  /** Output codec: projection sees the encoded value. Omitted: the value is passed through as is. */
  readonly output?: O
  /** The one executor. Returns the output or throws `ToolFailure`; must honour `ctx.abort`. */
  readonly execute: (input: z.output<I>, ctx: Context) => Promise<z.output<O>> | z.output<O>
  /** Pure and total. Omitted: an encoded string becomes text, anything else structured output. */
  readonly toModelOutput?: (args: { input: z.output<I>; output: z.input<O> }) => readonly ModelContent[]
  /** A short title for UIs; defaults to the registered name. */
  readonly title?: (args: { input: z.output<I>; output: z.input<O> }) => string
  /** Replaces the generic invalid-arguments message. */
  readonly formatValidationError?: (error: z.ZodError) => string
  /** Where the tool is offered (feature flags, provider/model rules, client kind). */
  readonly available?: (env: Availability) => Offer
  readonly annotations?: Annotations
  /** The permission key the tool belongs to, when not its own name (see `Declarations`). */
  readonly permission?: string
  /** How the tool reads a file page by page (see `Paging`). */
  readonly paging?: Paging
  /**
   * Whether this result is a look at something still changing (a running job's state): the loop guard
   * then never counts the call as a repeat, however often the same answer comes back. A tool made to be
   * polled says so here; a result that shows the change itself (new content) needs nothing.
   */
  readonly pollable?: (args: { input: z.output<I>; output: z.input<O> }) => boolean
}

/** A tool without an output codec: its value is passed to projection as it is. */
export interface PlainConfig<I extends z.ZodType, R>
  extends Omit<MakeConfig<I, z.ZodType<R>>, "output" | "execute" | "toModelOutput" | "title" | "pollable"> {
  readonly output?: undefined
  readonly execute: (input: z.output<I>, ctx: Context) => Promise<R> | R
  readonly toModelOutput?: (args: { input: z.output<I>; output: R }) => readonly ModelContent[]
  readonly title?: (args: { input: z.output<I>; output: R }) => string
  readonly pollable?: (args: { input: z.output<I>; output: R }) => boolean
}

/**
 * Builds a tool from one executor and its codecs. The config is read once: changing it afterwards
 * changes nothing, and the tool can only ever invoke `config.execute` (spec 003, single executor).
 */
export function make<I extends z.ZodType, O extends z.ZodType>(
  config: MakeConfig<I, O> & { readonly output: O },
): Tool<z.output<I>, z.output<O>>
export function make<I extends z.ZodType, R>(config: PlainConfig<I, R>): Tool<z.output<I>, R>
export function make<I extends z.ZodType, O extends z.ZodType>(
  config: MakeConfig<I, O>,
): Tool<z.output<I>, z.output<O>> {
  const { toModelOutput, title, pollable, ...rest } = config
  const settings = {
    ...rest,
    ...(pollable
      ? {
          pollable: (decoded: unknown, encoded: unknown) =>
            pollable({ input: decoded, output: encoded } as { input: z.output<I>; output: z.input<O> }),
        }
      : {}),
  }
  return makeWith(settings, (decoded, encoded): Projection => {
    const args = { input: decoded, output: encoded } as { input: z.output<I>; output: z.input<O> }
    const content = toModelOutput ? toModelOutput(args) : defaultContent(encoded)
    return {
      content,
      ...(title ? { title: title(args) } : {}),
      ...(typeof encoded === "string" ? {} : { structured: encoded }),
    }
  })
}

/**
 * `make` with a given projection; the runtime's own adapters (v1 results) use it. Its input may be a
 * keyed schema (`Tool.schema`) and its output a function that builds the schema: each is built when
 * first read (a call), not when the tool is made (a listing).
 */
export function makeWith<I extends z.ZodType, O extends z.ZodType>(
  config: Omit<MakeConfig<I, O>, "toModelOutput" | "title" | "pollable" | "input" | "output"> & {
    readonly input: I | SchemaSource<I>
    readonly output?: O | (() => O)
    /** See `ToolInternals.encodePlain`. */
    readonly encodePlain?: (value: unknown) => unknown
    readonly pollable?: (decoded: unknown, encoded: unknown) => boolean
  },
  project: (decoded: unknown, encoded: unknown) => Projection,
): Tool<z.output<I>, z.output<O>> {
  const { description, input, output, execute, formatValidationError, available, pollable } = config
  if (typeof execute !== "function") throw new TypeError("Tool.make: execute must be a function.")
  if (typeof description !== "string") throw new TypeError("Tool.make: description must be a string.")
  const handle = Object.freeze(Object.create(null)) as Tool<z.output<I>, z.output<O>>
  const keyed = isSchemaSource(input) ? input : undefined
  attach(handle, {
    description,
    get input() {
      return keyed ? keyed.schema() : (input as I)
    },
    manifestKey: keyed?.builtin ? keyed.key : undefined,
    get output() {
      return typeof output === "function" ? output() : output
    },
    encodePlain: config.encodePlain,
    execute: execute as (input: unknown, ctx: Context) => unknown,
    project,
    formatValidationError,
    available,
    annotations: { ...config.annotations },
    permission: config.permission,
    paging: config.paging,
    pollable,
  })
  return handle
}

function defaultContent(encoded: unknown): ModelContent[] {
  if (typeof encoded === "string") return [text(encoded)]
  if (encoded === undefined) return [text("")]
  return [text(JSON.stringify(encoded, null, 2))]
}
