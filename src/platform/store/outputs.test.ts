// Saved outputs in the store, on each engine: chunks come back byte for byte (any bytes, NUL included),
// an output is seen only once finished, a failed write leaves nothing, and the sweep removes old ones.
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { engines } from "./fixtures/engines.ts"
import { OUTPUT_CHUNK_BYTES, StoredOutputs } from "./outputs.ts"
import { openStore, type Store } from "./store.ts"

for (const engine of await engines()) {
  describe(`StoredOutputs (${engine.name})`, () => {
    function open(): { store: Store; outputs: StoredOutputs } {
      const store = openStore(engine.location())
      return { store, outputs: new StoredOutputs(store.db) }
    }

    it("returns each chunk as written, and the output once finished", () => {
      const { store, outputs } = open()
      try {
        const id = "tool_0123456789abABCDEFGHIJKLMN"
        const chunks = [randomBytes(OUTPUT_CHUNK_BYTES), Buffer.from("\0é€😀\0end", "utf8")]
        expect(outputs.begin(id, { sessionID: "ses_1", callID: "call_1" }, 1_000)).toBe(true)
        for (const [seq, chunk] of chunks.entries()) outputs.append(id, seq, chunk)
        // Not finished: not there for readers.
        expect(outputs.get(id)).toBeUndefined()
        const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
        outputs.finish(id, bytes, chunks.length)
        expect(outputs.get(id)).toEqual({
          id,
          sessionID: "ses_1",
          callID: "call_1",
          created: 1_000,
          bytes,
          chunks: 2,
        })
        for (const [seq, chunk] of chunks.entries()) {
          expect(Buffer.from(outputs.chunk(id, seq)!).equals(chunk)).toBe(true)
        }
        expect(outputs.chunk(id, 2)).toBeUndefined()
        // Saved before: begin says so and nothing changes.
        expect(outputs.begin(id, undefined)).toBe(false)
        expect(outputs.get(id)?.sessionID).toBe("ses_1")
      } finally {
        store.close()
      }
    })

    it("refuses a chunk over 1 MiB, discards a write that failed, sweeps by age", () => {
      const { store, outputs } = open()
      try {
        expect(() => outputs.append("tool_x", 0, new Uint8Array(OUTPUT_CHUNK_BYTES + 1))).toThrow(/at most/)
        outputs.begin("tool_half", undefined, 1_000)
        outputs.append("tool_half", 0, Buffer.from("half"))
        outputs.discard("tool_half")
        expect(store.db.prepare("SELECT count(*) AS n FROM output_chunk").get<{ n: number }>()?.n).toBe(0)

        for (const [id, created] of [
          ["tool_old", 1_000],
          ["tool_new", 5_000],
        ] as const) {
          outputs.begin(id, undefined, created)
          outputs.append(id, 0, Buffer.from(id))
          outputs.finish(id, id.length, 1)
        }
        // An unfinished write a dead writer left is swept by its age too.
        outputs.begin("tool_dead", undefined, 1_000)
        outputs.append("tool_dead", 0, Buffer.from("partial"))
        expect(outputs.sweep(2_000)).toBe(2)
        expect(outputs.get("tool_old")).toBeUndefined()
        expect(outputs.get("tool_new")?.bytes).toBe(8)
        const left = store.db.prepare("SELECT output_id FROM output_chunk ORDER BY output_id").all()
        expect(left).toEqual([{ output_id: "tool_new" }])
      } finally {
        store.close()
      }
    })
  })
}
