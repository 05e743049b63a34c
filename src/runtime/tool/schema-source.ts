// A tool's parameters schema, known by a key and built on its first use, and the build's manifest of
// those schemas as JSON Schema. Listing tools needs only their JSON Schemas: building every built-in
// tool's Zod schema and converting it was a fifth of `toolbelt tools`'s start and as much of `toolbelt
// mcp`'s before its first answer. The build writes each built-in tool's JSON Schema beside the code it
// compiled (dist/tool-schemas.json, scripts/tool-schemas.js), so a listing from the build reads them;
// the Zod schema is built when a call is validated. From the sources there is no manifest: every JSON
// Schema is computed from the schema, so an edit is never shadowed by a stale one.
import { readFileSync } from "node:fs"
import { z } from "zod"

/** A parameters schema built on first use, named by a key unique among the tools of this process. */
export interface SchemaSource<P extends z.ZodType = z.ZodType> {
  readonly key: string
  /**
   * One of this copy's built-in tools' (`builtinSchema`): its JSON Schema may come from the build's
   * manifest. Never another's: a plugin's tool keyed like a built-in one (made with its own copy of
   * the package, whose manifest has that key) would be listed with the built-in tool's schema.
   */
  readonly builtin: boolean
  /** The schema, built the first time it is asked for. */
  schema(): P
}

/** The schema type a source builds. */
export type SchemaOf<S> = S extends SchemaSource<infer P> ? P : never

const SOURCE = Symbol("agent-toolbelt.schema-source")
const sources = new Map<string, SchemaSource>()

/**
 * A parameters schema built from `build` on first use (`Tool.schema`): a listing or a call, not the
 * tool's module load or `init`. Two sources of one copy of this module may not share a key.
 */
export function schema<P extends z.ZodType>(key: string, build: () => P): SchemaSource<P> {
  return made(key, build, false)
}

/** `schema` for a built-in tool: the build writes its JSON Schema into the manifest under `key`. */
export function builtinSchema<P extends z.ZodType>(key: string, build: () => P): SchemaSource<P> {
  return made(key, build, true)
}

function made<P extends z.ZodType>(key: string, build: () => P, builtin: boolean): SchemaSource<P> {
  if (sources.has(key))
    throw new Error(`A tool schema named "${key}" exists already. Give each one its own key.`)
  let built: P | undefined
  const source = {
    [SOURCE]: true,
    key,
    builtin,
    schema: () => {
      built ??= build()
      return built
    },
  }
  sources.set(key, source)
  return source
}

export function isSchemaSource(value: unknown): value is SchemaSource {
  return typeof value === "object" && value !== null && SOURCE in value
}

/** A tool's input schema as the model sees it: JSON Schema of what it may send. */
export function toInputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>
}

/** Every built-in tool's schema made by this copy, by key, as JSON Schema: what the build writes. */
export function schemaManifest(): Record<string, Record<string, unknown>> {
  const builtins = [...sources].filter(([, source]) => source.builtin)
  return Object.fromEntries(builtins.map(([key, source]) => [key, toInputJsonSchema(source.schema())]))
}

/** The manifest's file, beside the compiled code: dist/tool-schemas.json (none beside the sources). */
export const MANIFEST_URL = new URL("../../tool-schemas.json", import.meta.url)

let manifest: Record<string, Record<string, unknown>> | null | undefined

/** The build's JSON Schema of the built-in source `key`, if this code was built with one. */
export function manifestJsonSchema(key: string): Record<string, unknown> | undefined {
  if (manifest === undefined) manifest = readManifest()
  return manifest?.[key]
}

function readManifest(): Record<string, Record<string, unknown>> | null {
  try {
    return JSON.parse(readFileSync(MANIFEST_URL, "utf8")) as Record<string, Record<string, unknown>>
  } catch {
    return null
  }
}

/** Uses `given` as the manifest (null: none), for tests; undefined reads the file again when asked. */
export function useManifest(given: Record<string, Record<string, unknown>> | null | undefined): void {
  manifest = given
}
