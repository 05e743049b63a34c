// The OpenAPI document of the API, written from the routes' own Zod schemas.
import { z } from "zod"
import { type AnyRoute, responsesOf } from "./route.ts"

type JsonSchema = Record<string, unknown>

export interface OpenApiInfo {
  readonly title: string
  readonly version: string
  readonly description: string
}

/**
 * OpenAPI 3.1 (whose schemas are JSON Schema 2020-12, what `z.toJSONSchema` writes): one operation
 * per route, with its path and query parameters, its JSON body and its responses.
 */
export function openApiDocument(routes: readonly AnyRoute[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const spec of routes) {
    const path = spec.path.replace(/:(\w+)/g, "{$1}")
    paths[path] ??= {}
    paths[path][spec.method] = {
      operationId: spec.id,
      tags: [spec.tag],
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      parameters: [...parameters(spec.params, "path"), ...parameters(spec.query, "query")],
      ...(spec.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: jsonSchema(spec.body, "input") } },
            },
          }
        : {}),
      responses: Object.fromEntries(
        Object.entries(responsesOf(spec)).map(([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.schema
              ? {
                  content: {
                    [response.contentType ?? "application/json"]: {
                      schema: jsonSchema(response.schema, "output"),
                    },
                  },
                }
              : response.contentType
                ? { content: { [response.contentType]: {} } }
                : {}),
          },
        ]),
      ),
    }
  }
  return {
    openapi: "3.1.0",
    info,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "The token given with --token." },
      },
    },
    paths,
  }
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema
  return rest
}

/** One OpenAPI parameter per property of an object schema. */
function parameters(schema: z.ZodType | undefined, where: "path" | "query"): Record<string, unknown>[] {
  if (!schema) return []
  const object = jsonSchema(schema, "input")
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((object.required ?? []) as string[])
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || required.has(name),
    ...(typeof property.description === "string" ? { description: property.description } : {}),
    schema: property,
    ...(property.type === "array" ? { style: "form", explode: true } : {}),
  }))
}
