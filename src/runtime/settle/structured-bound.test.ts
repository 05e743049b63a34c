import { describe, expect, it } from "vitest"
import { z } from "zod"
import { boundStructured } from "./structured-bound.ts"

/** A store that keeps what it is given, as the real one does on disk. */
function memoryStore() {
  const saved: string[] = []
  return {
    saved,
    write: async (text: string) => {
      saved.push(text)
      return `/data/tool-output/tool_${saved.length}`
    },
  }
}

const schemaOf = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Record<string, unknown>
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

describe("boundStructured", () => {
  it("a value within the limit is returned as is, nothing stored", async () => {
    const store = memoryStore()
    const out = await boundStructured({ a: [1, 2, 3] }, { maxBytes: 100, store })
    expect(out).toEqual({ truncated: false, value: { a: [1, 2, 3] } })
    expect(store.saved).toEqual([])
  })

  it("a 6 MB value: the whole stored, a preview under the limit that still parses with the schema", async () => {
    const Output = z.object({
      total: z.number().int(),
      query: z.string().regex(/^[a-z ]+$/),
      items: z.array(z.object({ id: z.number().int(), text: z.string() })).min(3),
      notes: z.string().min(10),
    })
    const value = {
      total: 60_000,
      query: "all of it",
      items: Array.from({ length: 60_000 }, (_, id) => ({ id, text: `item ${id} ${"x".repeat(80)}` })),
      notes: "n".repeat(400_000),
    }
    const store = memoryStore()
    const out = await boundStructured(value, { maxBytes: 51_200, store, schema: schemaOf(Output) })
    expect(out.truncated).toBe(true)
    if (!out.truncated) return
    expect(bytes(out.value)).toBeLessThanOrEqual(51_200)
    expect(Output.safeParse(out.value).success).toBe(true)
    // The JSON Schema as a client would check it.
    expect(z.fromJSONSchema(schemaOf(Output) as never).safeParse(out.value).success).toBe(true)
    expect(JSON.parse(store.saved[0]!)).toEqual(value)
    expect(out.json).toBe(store.saved[0])
    const preview = out.value as typeof value
    expect(preview.total).toBe(60_000)
    expect(preview.query).toBe("all of it")
    expect(preview.items[0]).toEqual(value.items[0])
    expect(out.bound).toMatchObject({
      truncated: true,
      outputPath: "/data/tool-output/tool_1",
      originalSize: bytes(value),
      truncatedSize: bytes(out.value),
    })
    expect(out.bound.cuts).toEqual([
      { path: "notes", kind: "string", kept: preview.notes.length, total: 400_000 },
      { path: "items", kind: "array", kept: preview.items.length, total: 60_000 },
    ])
  })

  it("keeps minItems and minLength, and strings with a pattern whole, through $refs and unions", async () => {
    const schema = {
      type: "object",
      properties: {
        rows: { $ref: "#/$defs/rows" },
        id: { type: "string", pattern: "^[0-9a-f]+$" },
        either: { anyOf: [{ type: "null" }, { type: "string", minLength: 50 }] },
      },
      $defs: { rows: { type: "array", minItems: 4, items: { type: "string" } } },
    }
    const value = {
      rows: Array.from({ length: 100 }, () => "r".repeat(1000)),
      id: "ab12".repeat(100),
      either: "e".repeat(5000),
    }
    const out = await boundStructured(value, { maxBytes: 2000, store: memoryStore(), schema })
    if (!out.truncated) throw new Error("expected a cut")
    const preview = out.value as typeof value
    expect(preview.rows.length).toBeGreaterThanOrEqual(4)
    expect(preview.id).toBe(value.id)
    expect(preview.either.length).toBeGreaterThanOrEqual(50)
    expect(preview.either.length).toBeLessThan(5000)
  })

  it("without a schema: arrays and strings cut, numbers kept; a storing failure rejects", async () => {
    const out = await boundStructured(["a".repeat(10_000), 1, 2], { maxBytes: 500, store: memoryStore() })
    if (!out.truncated) throw new Error("expected a cut")
    expect(bytes(out.value)).toBeLessThanOrEqual(500)
    const failing = { write: async () => Promise.reject(new Error("disk full")) }
    await expect(
      boundStructured({ big: "b".repeat(1000) }, { maxBytes: 10, store: failing }),
    ).rejects.toThrow("disk full")
  })
})
