import { describe, expect, it } from "vitest"
import { z } from "zod"
import * as Tool from "../tool/index.ts"
import { internals } from "../tool/internal.ts"
import { RegistrationError } from "./name.ts"
import { Registry } from "./registry.ts"
import { ToolSet } from "./tool-set.ts"

const named = (label: string) => Tool.make({ description: label, input: z.object({}), execute: () => label })
const describeOf = (registry: Registry, name: string) => {
  const entry = registry.resolve(name)
  return entry ? internals(entry.value).description : undefined
}

describe("scoped registration", () => {
  it("latest active registration wins; closing it reveals the previous one", () => {
    const registry = new Registry()
    const first = registry.register({ echo: named("A") })
    const second = registry.register({ echo: named("B") })
    expect(describeOf(registry, "echo")).toBe("B")
    second.close()
    expect(describeOf(registry, "echo")).toBe("A")
    first.close()
    expect(registry.resolve("echo")).toBeUndefined()
  })

  it("closing an older registration removes exactly that contribution", () => {
    const registry = new Registry()
    const first = registry.register({ echo: named("A"), only: named("only-A") })
    registry.register({ echo: named("B") })
    first.close()
    expect(describeOf(registry, "echo")).toBe("B")
    expect(registry.resolve("only")).toBeUndefined()
    first.close() // idempotent
    expect(describeOf(registry, "echo")).toBe("B")
  })

  it("supports `using` for scoped registration", () => {
    const registry = new Registry()
    registry.register({ echo: named("A") })
    {
      using _ = registry.register({ echo: named("B") })
      expect(describeOf(registry, "echo")).toBe("B")
    }
    expect(describeOf(registry, "echo")).toBe("A")
  })

  it("project registrations beat process ones, even older ones", () => {
    const process = new ToolSet("process")
    const registry = new Registry({ process })
    registry.register({ echo: named("project") })
    registry.register({ echo: named("process") }, { placement: "process" })
    expect(describeOf(registry, "echo")).toBe("project")
    expect(registry.resolve("echo")!.placement).toBe("project")
    // another project sharing the process tools sees the process one
    const other = new Registry({ process })
    expect(describeOf(other, "echo")).toBe("process")
  })

  it("copies the caller's record: mutating it later changes nothing", () => {
    const registry = new Registry()
    const record: Record<string, Tool.AnyTool> = { echo: named("A") }
    registry.register(record)
    record.echo = named("mutated")
    record.extra = named("extra")
    expect(describeOf(registry, "echo")).toBe("A")
    expect(registry.resolve("extra")).toBeUndefined()
  })

  it("validates names and values with clear errors", () => {
    const registry = new Registry()
    for (const bad of ["1abc", "", "has space", "a".repeat(65), "dot.name", "ünï"]) {
      expect(() => registry.register({ [bad]: named("x") })).toThrow(RegistrationError)
    }
    expect(() => registry.register({ ["a".repeat(64)]: named("x") })).not.toThrow()
    expect(() => registry.register({ ok_name: named("x"), "bad name": named("y") })).toThrow(
      /Invalid tool name "bad name"/,
    )
    expect(registry.resolve("ok_name")).toBeUndefined() // nothing of a failed registration is kept
    expect(() => registry.register({ fake: { execute() {} } as any })).toThrow(/not a tool/)
  })

  it("notifies listeners when the set changes", () => {
    const registry = new Registry()
    let changes = 0
    const off = registry.onChange(() => changes++)
    const handle = registry.register({ echo: named("A") })
    handle.close()
    off()
    registry.register({ echo: named("B") })
    expect(changes).toBe(2)
  })
})

describe("tools()", () => {
  it("initialises v1 tools per agent and filters by the tools' own availability", async () => {
    const registry = new Registry()
    registry.register({
      always: named("always"),
      gpt_only: Tool.make({
        description: "gpt",
        input: z.object({}),
        execute: () => "",
        available: (env) => env.modelID?.includes("gpt-") ?? false,
      }),
      cli_only: Tool.define(
        "cli_only",
        async (init) => ({
          description: `agent ${init?.agent?.name}`,
          parameters: z.object({ a: z.string() }),
          execute: async () => ({ title: "", output: "", metadata: {} }),
        }),
        { available: (env) => env.client === "cli" },
      ),
    })
    const forCli = await registry.tools({ agent: "plan", client: "cli", modelID: "claude" })
    expect(forCli.map((t) => t.name)).toEqual(["always", "cli_only"])
    expect(forCli[1]!.description).toBe("agent plan")
    expect(forCli[1]!.inputSchema.required).toEqual(["a"])
    const forGpt = await registry.tools({ agent: "build", client: "mcp", modelID: "gpt-5" })
    expect(forGpt.map((t) => t.name)).toEqual(["always", "gpt_only"])
  })

  it("initialises in parallel and leaves out a tool whose init fails", async () => {
    const registry = new Registry()
    let active = 0
    let maxActive = 0
    const slow = (label: string) =>
      Tool.define(label, async () => {
        active++
        maxActive = Math.max(maxActive, active)
        await new Promise((r) => setTimeout(r, 20))
        active--
        return {
          description: label,
          parameters: z.object({}),
          execute: async () => ({ title: "", output: "", metadata: {} }),
        }
      })
    registry.register({
      a: slow("a"),
      b: slow("b"),
      c: slow("c"),
      broken: Tool.define("broken", async () => {
        throw new Error("boom")
      }),
    })
    const tools = await registry.tools({ agent: "build" })
    expect(tools.map((t) => t.name)).toEqual(["a", "b", "c"])
    expect(maxActive).toBe(3) // all three inits were in flight together
  })

  it("repairs a name differing only in case when the match is unique", () => {
    const registry = new Registry()
    registry.register({ read: named("r"), Edit: named("E"), edit: named("e") })
    expect(registry.repairName("Read")).toBe("read")
    expect(registry.repairName("EDIT")).toBeUndefined() // ambiguous
    expect(registry.repairName("write")).toBeUndefined()
  })

  it("resolves an alias to its tool without listing it; a registered name wins, and closing removes it", () => {
    const registry = new Registry()
    const handle = registry.register(
      { my_custom_tool: named("m"), other: named("o") },
      { aliases: { my_tool: "my_custom_tool", other_alias: "missing", other_tool: "other" } },
    )
    expect(registry.ids()).toEqual(["my_custom_tool", "other"])
    expect(registry.repairName("my_tool")).toBe("my_custom_tool")
    expect(registry.repairName("other_alias")).toBeUndefined() // names no tool of its registration
    // Only among the names given (a turn's): an alias of a tool not offered there is no repair.
    expect(registry.repairName("my_tool", ["other"])).toBeUndefined()
    registry.register({ other_tool: named("t") })
    expect(registry.ids()).toContain("other_tool")
    handle.close()
    expect(registry.repairName("my_tool")).toBeUndefined()
  })
})
