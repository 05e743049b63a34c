// Saved outputs copied into a store (its tables exist on SQLite too, which is enough here): what is
// copied, what is copied again, and what is never copied.
import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { StoredOutputs } from "../../platform/store/outputs.ts"
import { openStore, type Store } from "../../platform/store/store.ts"
import { OutputStore } from "./store.ts"

const opened: { store: Store; dir: string }[] = []
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    store.close()
    await rm(dir, { recursive: true, force: true })
  }
})

async function setup() {
  const dir = await mkdtemp(join(tmpdir(), "toolbelt-shared-output-"))
  const store = openStore({ path: ":memory:" })
  opened.push({ store, dir })
  const shared = new StoredOutputs(store.db)
  return { dir, shared, output: new OutputStore({ dir: join(dir, "out"), shared }) }
}

async function text(output: OutputStore, id: string): Promise<string | undefined> {
  const found = await output.open(id)
  return found ? await new Response(found.stream).text() : undefined
}

describe("OutputStore with a shared store", () => {
  it("copies what it saves, filed under the call, and reads it back from the store", async () => {
    const { shared, output } = await setup()
    const path = await output.write("é".repeat(10), { sessionID: "ses_1", callID: "call_1" })
    const id = path.slice(path.lastIndexOf("/") + 1)
    expect(shared.get(id)).toMatchObject({ sessionID: "ses_1", callID: "call_1", bytes: 20, chunks: 1 })
    expect((await output.open(id))?.source).toBe("store")
    expect(await text(output, id)).toBe("é".repeat(10))
  })

  it("copies a shared file again once it has grown, and never a file that is not one of its own", async () => {
    const { dir, shared, output } = await setup()
    const path = await output.write("first\n")
    const id = path.slice(path.lastIndexOf("/") + 1)
    // A background job's log grows in place; sharing it again brings the store up to date.
    await appendFile(path, "second\n")
    await output.share(path)
    expect(await text(output, id)).toBe("first\nsecond\n")
    expect(shared.get(id)?.bytes).toBe(13)

    const elsewhere = join(dir, id)
    await writeFile(elsewhere, "not saved output")
    const before = shared.get(id)
    await output.share(elsewhere)
    await output.share(join(output.dir, "notes.txt"))
    expect(shared.get(id)).toEqual(before)
    expect(await output.open("../notes")).toBeUndefined()
  })
})
