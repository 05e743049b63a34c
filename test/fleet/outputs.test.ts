// Full outputs of bounded results across a fleet on one PostgreSQL store (test/fixtures/postgres.ts;
// skipped, saying why, where none can start): a result cut on A is fetched whole, byte for byte, through
// B's `GET /api/outputs/:id`, from the store's chunks; unknown ids are a 404 that says so; the sweep
// removes old ones. On SQLite the route serves this instance's own file.
import { basename } from "node:path"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { internals } from "../../src/compose/internals.ts"
import type { Toolbelt } from "../../src/compose/toolbelt.ts"
import { OUTPUT_CHUNK_BYTES } from "../../src/platform/store/outputs.ts"
import * as Tool from "../../src/runtime/tool/index.ts"
import { postgresOrSkip } from "../fixtures/postgres.ts"
import { fleet } from "./fixtures/instances.ts"

const pg = await postgresOrSkip()

const { served } = fleet()

interface Instance {
  readonly toolbelt: Toolbelt
  /** GET `path` on this instance, with its token. */
  get(path: string): Promise<Response>
}

/** A serve instance of a project of its own, on the store at `store` (a URL, or the data dir's SQLite). */
async function instance(store: string | undefined): Promise<Instance> {
  const { toolbelt, url, token } = await served({ store })
  return {
    toolbelt,
    get: (path) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } }),
  }
}

/** Over two 1 MiB chunks of UTF-8: two-, three- and four-byte characters, a NUL, numbered lines. */
function bigText(): string {
  const lines: string[] = []
  let bytes = 0
  for (let i = 0; bytes < 2.5 * OUTPUT_CHUNK_BYTES; i++) {
    const line = `${i} é ü € 中文 😀 ${"ñ".repeat(i % 50)}${i % 1000 === 0 ? "\0" : ""}`
    lines.push(line)
    bytes += Buffer.byteLength(line) + 1
  }
  return lines.join("\n")
}

/** Registers `dump` on `toolbelt` (it prints `text`) and calls it: the result is cut and saved. */
async function dumped(toolbelt: Toolbelt, text: string, sessionID: string): Promise<string> {
  toolbelt.register({
    dump: Tool.make({ description: "Prints a lot.", input: z.object({}), execute: () => text }),
  })
  const result = await toolbelt.call({ tool: "dump", input: {}, sessionID })
  expect(result.status).toBe("completed")
  expect(result.metadata.truncated).toBe(true)
  return basename(String(result.metadata.outputPath))
}

describe.skipIf(!pg.server)(`full outputs across instances${pg.server ? "" : ` (${pg.reason})`}`, () => {
  it("a result cut on A is fetched whole through B; unknown ids are 404; the sweep removes it", async () => {
    const store = await pg.server!.database()
    const a = await instance(store)
    const b = await instance(store)
    const text = bigText()
    const expected = Buffer.from(text, "utf8")

    const id = await dumped(a.toolbelt, text, "ses_out")
    // Filed under its call, in 1 MiB chunks.
    const rows = internals(b.toolbelt)
      .store.db.prepare("SELECT session_id, bytes, chunks FROM output WHERE id = ?")
      .get<{ session_id: string; bytes: number; chunks: number }>(id)
    expect(rows).toEqual({
      session_id: "ses_out",
      bytes: expected.length,
      chunks: Math.ceil(expected.length / OUTPUT_CHUNK_BYTES),
    })
    expect(rows!.chunks).toBeGreaterThanOrEqual(3)

    const started = performance.now()
    const reply = await b.get(`/api/outputs/${id}`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("x-toolbelt-output-source")).toBe("store")
    expect(reply.headers.get("content-type")).toBe("text/plain; charset=utf-8")
    expect(Number(reply.headers.get("content-length"))).toBe(expected.length)
    const body = Buffer.from(await reply.arrayBuffer())
    console.log(
      `fleet outputs: ${(expected.length / 2 ** 20).toFixed(1)} MiB in ${rows!.chunks} chunks fetched through B in ${Math.round(performance.now() - started)} ms`,
    )
    expect(body.equals(expected)).toBe(true)
    // The prefix may be left out.
    const bare = await b.get(`/api/outputs/${id.slice("tool_".length)}`)
    expect(Buffer.from(await bare.arrayBuffer()).equals(expected)).toBe(true)

    const unknown = await b.get("/api/outputs/tool_000000000000AAAAAAAAAAAAAA")
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { error: string }).error).toMatch(
      /^Output not found: tool_000000000000AAAAAAAAAAAAAA\. No output of that id is saved in the shared store/,
    )
    const invalid = await b.get("/api/outputs/..%2F..%2Fetc%2Fpasswd")
    expect(invalid.status).toBe(400)
    expect(((await invalid.json()) as { error: string }).error).toContain("Not an output id")

    // Eight days on, B's sweep removes A's output from the store (A's own file is A's to sweep).
    await internals(b.toolbelt).output.sweep({ now: Date.now() + 8 * 24 * 3_600_000 })
    expect(internals(b.toolbelt).store.db.prepare("SELECT count(*) AS n FROM output_chunk").get()).toEqual({
      n: 0,
    })
    expect((await b.get(`/api/outputs/${id}`)).status).toBe(404)
  }, 60_000)
})

describe.skipIf(!pg.server)(
  `bash's saved output across instances${pg.server ? "" : ` (${pg.reason})`}`,
  () => {
    it("a command's output that bash cut on A is fetched whole through B", async () => {
      const store = await pg.server!.database()
      const a = await instance(store)
      const b = await instance(store)
      const line = "é € 😀 中文\n"
      const result = await a.toolbelt.call({
        tool: "bash",
        input: { command: `yes '${line.trim()}' | head -n 150000`, description: "prints a lot" },
        sessionID: "ses_bash",
      })
      expect(result.status).toBe("completed")
      expect(result.metadata.truncated).toBe(true)
      const id = basename(String(result.metadata.outputPath))
      const reply = await b.get(`/api/outputs/${id}`)
      expect(reply.status).toBe(200)
      expect(reply.headers.get("x-toolbelt-output-source")).toBe("store")
      expect(Buffer.from(await reply.arrayBuffer()).equals(Buffer.from(line.repeat(150_000)))).toBe(true)
    }, 60_000)
  },
)

describe("full outputs on SQLite", () => {
  it("the route serves this instance's saved file, and 404 for an id it does not have", async () => {
    const one = await instance(undefined)
    const text = bigText()
    const id = await dumped(one.toolbelt, text, "ses_local")
    const reply = await one.get(`/api/outputs/${id}`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get("x-toolbelt-output-source")).toBe("file")
    expect(Buffer.from(await reply.arrayBuffer()).equals(Buffer.from(text, "utf8"))).toBe(true)
    // SQLite keeps the files only.
    expect(internals(one.toolbelt).store.db.prepare("SELECT count(*) AS n FROM output").get()).toEqual({
      n: 0,
    })
    const unknown = await one.get("/api/outputs/tool_000000000000AAAAAAAAAAAAAA")
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { error: string }).error).toContain("in this instance's data dir")
  })
})
