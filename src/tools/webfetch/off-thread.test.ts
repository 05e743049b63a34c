import { describe, expect, it } from "vitest"
import { isToolFailure } from "../../runtime/tool/index.ts"
import { runOffThread } from "./off-thread.ts"

const script = new URL("fixtures/spinning-worker.ts", import.meta.url)
const limits = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 64 }

describe("runOffThread", () => {
  it("terminates a worker stuck in a synchronous loop when the signal fires, rejecting with its reason", async () => {
    const outcome = await runOffThread({
      script,
      data: { hoard: false },
      limits,
      signal: AbortSignal.timeout(200),
      outOfMemory: () => "out of memory",
    }).catch((error: unknown) => error)
    expect((outcome as Error).name).toBe("TimeoutError")
  })

  it("stops a worker whose memory outside its heap passes the limit, with the message for it", async () => {
    const outcome = await runOffThread({
      script,
      data: { hoard: true },
      limits,
      maxExternalMb: 64,
      outOfMemory: () => "out of memory",
      tooMuchExternal: () => "decoded more than 64 MB",
    }).catch((error: unknown) => error)
    expect(isToolFailure(outcome)).toBe(true)
    expect((outcome as Error).message).toBe("decoded more than 64 MB")
  })
})
