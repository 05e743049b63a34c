import { InvalidToolInputError, NoSuchToolError, type ToolSet } from "ai"
import { describe, expect, it } from "vitest"
import { matchCase, repairToolCall } from "./repair.ts"

const offered = ["edit", "read", "write"]
const withInvalid = { read: {}, invalid: {} } as unknown as ToolSet
const withoutInvalid = { read: {} } as unknown as ToolSet

function repair(
  toolName: string,
  input: string,
  error: NoSuchToolError | InvalidToolInputError,
  tools = withInvalid,
) {
  return repairToolCall({ offered })({
    toolCall: { type: "tool-call", toolCallId: "c1", toolName, input },
    tools,
    error,
    messages: [],
    instructions: undefined,
    system: undefined,
    inputSchema: async () => ({}),
  })
}

describe("matchCase", () => {
  it.each([
    ["read", "read"],
    ["Read", "read"],
    ["WRITE", "write"],
    ["reed", undefined],
  ])("%s → %s", (name, expected) => {
    expect(matchCase(name, offered)).toBe(expected)
  })

  it("refuses an ambiguous match", () => {
    expect(matchCase("READ", ["read", "Read"])).toBeUndefined()
  })
})

describe("repairToolCall", () => {
  it("re-dispatches a name that differs only in case", async () => {
    const call = await repair("Read", '{"filePath":"a"}', new NoSuchToolError({ toolName: "Read" }))
    expect(call).toMatchObject({ toolName: "read", input: '{"filePath":"a"}', toolCallId: "c1" })
  })

  it("sends an unknown name to invalid with the tools the model may call", async () => {
    const call = await repair("teleport", "{}", new NoSuchToolError({ toolName: "teleport" }))
    expect(call?.toolName).toBe("invalid")
    expect(JSON.parse(call!.input)).toEqual({
      tool: "teleport",
      error: "Model tried to call unavailable tool 'teleport'. Available tools: edit, read, write.",
    })
  })

  it("sends unparseable input to invalid with the parse error", async () => {
    const cause = new SyntaxError("Unexpected end of JSON input")
    const call = await repair(
      "read",
      '{"filePath":',
      new InvalidToolInputError({ toolName: "read", toolInput: '{"filePath":', cause }),
    )
    const input = JSON.parse(call!.input)
    expect(call?.toolName).toBe("invalid")
    expect(input.tool).toBe("read")
    expect(input.error).toContain("Invalid input for tool read")
  })

  it("a wrong-case name with unparseable input goes to invalid under the repaired name", async () => {
    const call = await repair("READ", "{oops", new NoSuchToolError({ toolName: "READ" }))
    const input = JSON.parse(call!.input)
    expect(call?.toolName).toBe("invalid")
    expect(input).toMatchObject({ tool: "read", error: expect.stringContaining("JSON parsing failed") })
  })

  it("clips a huge error", async () => {
    const huge = "x".repeat(10_000)
    const call = await repair(huge, "{}", new NoSuchToolError({ toolName: huge }))
    expect(JSON.parse(call!.input).error.length).toBeLessThanOrEqual(2001)
  })

  it("leaves the call to the SDK when the set has no invalid tool", async () => {
    expect(
      await repair("teleport", "{}", new NoSuchToolError({ toolName: "teleport" }), withoutInvalid),
    ).toBeNull()
  })
})
