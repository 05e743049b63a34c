// A route of the API declared once: its path, its inputs and responses as Zod schemas, its handler.
// The same declaration validates requests and writes the route's part of the OpenAPI document.
import type { ServerResponse } from "node:http"
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response"
import type { Context, Hono } from "hono"
import { z } from "zod"
import { ApiError, type Issue } from "./api-error.ts"
import { ErrorBody } from "./schemas.ts"

type Method = "get" | "post" | "delete"

export interface ResponseSpec {
  readonly description: string
  /** The JSON body's schema (documentation: responses are not checked at run time). */
  readonly schema?: z.ZodType
  /** Default `application/json` when there is a schema. */
  readonly contentType?: string
}

export interface HandlerInput<P, Q, B> {
  readonly params: P
  readonly query: Q
  readonly body: B
  readonly request: Request
  readonly context: Context
}

export interface RouteSpec<
  P extends z.ZodType = z.ZodType<Record<string, never>>,
  Q extends z.ZodType = z.ZodType<Record<string, never>>,
  B extends z.ZodType = z.ZodType<undefined>,
> {
  /** The OpenAPI `operationId`. */
  readonly id: string
  readonly method: Method
  /** Hono's form: `/api/sessions/:id`. */
  readonly path: string
  readonly tag: string
  readonly summary: string
  readonly description?: string
  readonly params?: P
  readonly query?: Q
  /** A JSON body (requests must send `Content-Type: application/json`). */
  readonly body?: B
  /**
   * By status; the first 2xx is the status of a handler's plain return value. The errors `mount` gives
   * by itself (400, 413, 415) need not be listed: `responsesOf` adds them (a 400 listed here says more).
   */
  readonly responses: Readonly<Record<number, ResponseSpec>>
  /**
   * Returns a `Response` as it is, or a value sent as JSON (`undefined` with a 204 status: no body).
   * Headers set on the context go only with a `Response` or a 204: a JSON value is written without them.
   */
  readonly handler: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => unknown
}

/** Any route, whatever its schemas. */
export type AnyRoute = RouteSpec<z.ZodType, z.ZodType, z.ZodType>

/** Declares a route (its types flow from its schemas into its handler). */
export function route<
  P extends z.ZodType = z.ZodType<Record<string, never>>,
  Q extends z.ZodType = z.ZodType<Record<string, never>>,
  B extends z.ZodType = z.ZodType<undefined>,
>(spec: RouteSpec<P, Q, B>): AnyRoute {
  return spec as unknown as AnyRoute
}

/** An error response: `{error, issues?}`, described. */
export function errorSpec(description: string): ResponseSpec {
  return { description, schema: ErrorBody }
}

/**
 * Every response a route can give, by status: its own, and the errors `mount` gives before its handler
 * runs (input that fails its schema; a body that is not JSON or is too large) where it has not
 * described them itself.
 */
export function responsesOf(spec: AnyRoute): Readonly<Record<number, ResponseSpec>> {
  const responses: Record<number, ResponseSpec> = {}
  if (spec.params || spec.query || spec.body)
    responses[400] = errorSpec("Invalid request: the error names each problem and where it is.")
  if (spec.body) {
    responses[413] = errorSpec('The body is over the size limit ("mcp.max_request_bytes").')
    responses[415] = errorSpec("The body is not JSON.")
  }
  return { ...responses, ...spec.responses }
}

/**
 * Adds routes to an app. For each request:
 * 1. The path parameters and the query are checked against their schemas (repeated query keys and
 *    comma-separated values become lists where the schema takes a list).
 * 2. A route with a body takes JSON only (415 otherwise: an HTML form cannot send it, so a page on
 *    another site cannot either), read up to `maxBodyBytes` (413 beyond), parsed (400 for text that
 *    is not JSON) and checked.
 * 3. Any input that fails its schema is a 400 listing every problem with where it is.
 * 4. The handler's value becomes the response: a value as JSON, written straight to Node's response
 *    where there is one (see `sendJson`).
 */
export function mount(app: Hono, routes: readonly AnyRoute[], options: { maxBodyBytes: number }): void {
  for (const spec of routes) {
    const success = Number(Object.keys(spec.responses).find((status) => status.startsWith("2")) ?? 200)
    app.on(spec.method.toUpperCase(), spec.path, async (context) => {
      const request = context.req.raw
      const params = check(spec.params, context.req.param(), "path")
      // Only a route that takes a query parses the URL's.
      const query = spec.query ? check(spec.query, queryOf(new URL(request.url), spec.query), "query") : {}
      const body = spec.body
        ? check(spec.body, await readJson(request, options.maxBodyBytes), "body")
        : undefined
      const result = await spec.handler({ params, query, body, request, context })
      if (result instanceof Response) return result
      if (result === undefined && success === 204) return context.body(null, 204)
      return sendJson(context, result, success)
    })
  }
}

/**
 * A value as a JSON response. Under `@hono/node-server` it is written to the Node response directly:
 * a web `Response` built around it, then read back through its stream by the adapter, was 3% of
 * serve's CPU per call (bench/serve-load.bench.ts). The same status, headers and body as
 * `context.json` gives; elsewhere (tests' `app.request`), `context.json` itself.
 */
function sendJson(context: Context, value: unknown, status: number): Response {
  const outgoing = (context.env as { outgoing?: ServerResponse } | undefined)?.outgoing
  if (!outgoing || outgoing.headersSent || value === undefined)
    return context.json(value as object, status as 200)
  const text = JSON.stringify(value)
  outgoing.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  })
  outgoing.end(text)
  return RESPONSE_ALREADY_SENT
}

/** The value, as its schema parses it; a 400 that names every problem otherwise. */
function check(schema: z.ZodType | undefined, value: unknown, where: string): any {
  if (!schema) return {}
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const issues: Issue[] = parsed.error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join("."),
    message: issue.message,
  }))
  const list = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")
  throw new ApiError(
    400,
    `Invalid request: ${list}. Fix those fields and send the request again (GET /openapi.json describes each route).`,
    issues,
  )
}

/** The query as an object: a key the schema takes as a list collects every value (and splits commas). */
function queryOf(url: URL, schema: z.ZodType | undefined): Record<string, unknown> {
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {}
  const query: Record<string, unknown> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key)
    query[key] = takesList(shape[key])
      ? values.flatMap((value) => value.split(",")).filter((value) => value !== "")
      : values[values.length - 1]
  }
  return query
}

function takesList(schema: z.ZodType | undefined): boolean {
  let inner: unknown = schema
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault) inner = inner.unwrap()
  return inner instanceof z.ZodArray
}

async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get("content-type") ?? ""
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type.trim())) {
    throw new ApiError(
      415,
      `Unsupported Media Type: send the body as JSON with "Content-Type: application/json"${type ? ` (got "${type}")` : ""}.`,
    )
  }
  const text = await readText(request, maxBytes)
  if (text.trim() === "")
    throw new ApiError(400, "Bad Request: the request body is empty; send a JSON object.")
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new ApiError(
      400,
      `Bad Request: the request body is not valid JSON (${(error as Error).message}). Send a JSON object.`,
    )
  }
}

/** The body as text, refused with a 413 as soon as it is longer than `maxBytes` (before it is read when it says its length). */
async function readText(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new ApiError(
      413,
      `Payload Too Large: the request body is over the limit of ${maxBytes} bytes. Raise it with {"mcp": {"max_request_bytes": N}} in toolbelt.json.`,
    )
  const length = request.headers.get("content-length")
  if (Number(length ?? 0) > maxBytes) throw tooLarge()
  // With a length the HTTP parser holds the body to, read it whole: @hono/node-server then reads
  // the socket directly instead of building a web Request and stream around it (5% of serve's CPU
  // under bench/serve-load.bench.ts). Without one (chunked), count as it comes.
  if (length !== null) return request.text()
  if (!request.body) return ""
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of request.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength
    if (size > maxBytes) throw tooLarge()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString("utf8")
}
