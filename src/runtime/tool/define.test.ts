import { describe, expect, it } from "vitest"
import { z } from "zod"
import { fromDef } from "./define.ts"
import { internals } from "./internal.ts"

/** A v1 tool returning `value`, as the runtime holds it. */
const v1 = (value: unknown) =>
  internals(
    fromDef({
      description: "d",
      parameters: z.object({}),
      execute: async () => value as never,
    }),
  )

describe("a v1 result's encoding", () => {
  it("takes a plain result as the codec would give it, and leaves every other to the codec", async () => {
    const results: unknown[] = [
      { output: "x" },
      { title: "t", output: "x", metadata: { a: 1, nested: { b: [1] } } },
      { title: undefined, output: "", metadata: Object.create(null) },
      { output: "x", attachments: [{ type: "file", mime: "image/png", url: "data:image/png;base64,AA==" }] },
      { output: "x", attachments: [{ type: "file", mime: "text/plain", url: "file:///a", filename: "a" }] },
      // What the codec must see: a missing type (it defaults), extra keys (it drops), wrong types.
      { output: "x", attachments: [{ mime: "image/png", url: "u" }] },
      { output: "x", extra: 1 },
      { output: "x", attachments: [{ type: "file", mime: "m", url: "u", size: 3 }] },
      { output: 1 },
      { title: 2, output: "x" },
      { output: "x", metadata: [1] },
      { output: "x", metadata: new Map() },
      { output: "x", attachments: {} },
      { output: "x", attachments: [{ type: "link", mime: "m", url: "u" }] },
      "text",
      null,
      [],
    ]
    for (const value of results) {
      const own = v1(value)
      const plain = own.encodePlain?.(value)
      const coded = await own.output!.safeEncodeAsync(value as never)
      if (plain === undefined) continue
      // Whatever the shortcut takes, the codec takes too and gives an equal value.
      expect(coded.success, JSON.stringify(value)).toBe(true)
      expect(plain).toEqual(coded.data)
    }
    // The shortcut took the plain ones and refused the rest.
    const taken = results.filter((value) => v1(value).encodePlain?.(value) !== undefined)
    expect(taken).toEqual(results.slice(0, 5))
  })
})
