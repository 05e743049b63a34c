import { afterEach, describe, expect, it, vi } from "vitest"
import type { AskRequest } from "../permission/service.ts"
import { type BeforeInput, HookDenied, type HookReport, Hooks } from "./hooks.ts"

const call: BeforeInput = { tool: "bash", sessionID: "ses_1", callID: "call_1", agent: "build" }
const afterInput = { tool: "bash", sessionID: "ses_1", callID: "call_1", args: { command: "ls" } }
const result = { title: "ls", output: "a\nb", metadata: { exit: 0 } }

const ask: AskRequest = {
  sessionID: "ses_1",
  agent: "build",
  permission: "bash",
  patterns: ["rm -rf build"],
  always: ["rm *"],
  metadata: {},
}

/** A registry whose reports are collected instead of logged. */
function setup(): { hooks: Hooks; reports: HookReport[] } {
  const reports: HookReport[] = []
  return { hooks: new Hooks({ onError: (report) => reports.push(report) }), reports }
}

/** What the settlement pipeline does with a before-outcome: the tool sees exactly `outcome.args`. */
async function settleWith(hooks: Hooks, args: unknown, tool: (args: unknown) => string) {
  const outcome = await hooks.runBefore(call, args)
  if (outcome.action !== "run") return outcome
  return { action: "ran" as const, output: tool(outcome.args) }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("Hooks registration", () => {
  it("runs hooks in registration order; closing removes exactly that registration", async () => {
    const { hooks } = setup()
    const order: string[] = []
    const tag = (name: string) => ({
      "shell.env": () => {
        order.push(name)
      },
    })
    hooks.register(tag("a"), { source: "plugin:a" })
    const b = hooks.register(tag("b"), { source: "plugin:b" })
    hooks.register(tag("c"), { source: "plugin:c" })
    await hooks.shellEnv({ cwd: "/" })
    expect(order).toEqual(["a", "b", "c"])
    expect(hooks.sources("shell.env")).toEqual(["plugin:a", "plugin:b", "plugin:c"])
    b.close()
    b.close() // idempotent
    order.length = 0
    await hooks.shellEnv({ cwd: "/" })
    expect(order).toEqual(["a", "c"])
  })

  it("registering the same object twice gives two registrations; closing one keeps the other", async () => {
    const { hooks } = setup()
    let runs = 0
    const plugin = {
      "shell.env": () => {
        runs++
      },
    }
    const first = hooks.register(plugin, { source: "plugin:x" })
    hooks.register(plugin, { source: "plugin:x" })
    first.close()
    await hooks.shellEnv({ cwd: "/" })
    expect(runs).toBe(1)
  })

  it("supports `using`, reports has(), ignores keys that are not hooks", () => {
    const { hooks } = setup()
    expect(hooks.has("tool.definition")).toBe(false)
    {
      const plugin = { "tool.definition": () => {}, tool: { mytool: {} } }
      using _registration = hooks.register(plugin as never, { source: "plugin:y" })
      expect(hooks.has("tool.definition")).toBe(true)
      expect(hooks.has("shell.env")).toBe(false)
    }
    expect(hooks.has("tool.definition")).toBe(false)
  })

  it("rejects a hook that is not a function and a missing source", () => {
    const { hooks } = setup()
    expect(() => hooks.register({ "shell.env": "nope" } as never, { source: "plugin:z" })).toThrow(
      /Hook shell.env from plugin:z must be a function/,
    )
    expect(() => hooks.register({}, { source: "" })).toThrow(TypeError)
  })

  it("a run uses the registrations active when it started", async () => {
    const { hooks } = setup()
    const seen: string[] = []
    let second: { close(): void } | undefined
    hooks.register(
      {
        "tool.execute.before": () => {
          seen.push("first")
          second?.close()
        },
      },
      { source: "plugin:first" },
    )
    second = hooks.register(
      {
        "tool.execute.before": () => {
          seen.push("second")
        },
      },
      { source: "plugin:second" },
    )
    await hooks.runBefore(call, {})
    await hooks.runBefore(call, {})
    expect(seen).toEqual(["first", "second", "first"])
  })
})

describe("tool.execute.before", () => {
  it("without hooks, runs with the very same arguments", async () => {
    const { hooks } = setup()
    const args = { command: "ls" }
    const outcome = await hooks.runBefore(call, args)
    expect(outcome).toEqual({ action: "run", args })
    expect(outcome.args).toBe(args)
  })

  it("rewritten arguments reach the next hook and the tool (opencode #20013)", async () => {
    const { hooks } = setup()
    const seenBySecond: unknown[] = []
    const seenByThird: unknown[] = []
    hooks.register(
      {
        "tool.execute.before": (_input, output) => {
          // Mutation in place.
          ;(output.args as { command: string }).command += " -la"
        },
      },
      { source: "plugin:mutate" },
    )
    hooks.register(
      {
        "tool.execute.before": (_input, output) => {
          seenBySecond.push(structuredClone(output.args))
          // Replacement by assignment.
          output.args = { ...(output.args as object), timeout: 5000 }
        },
      },
      { source: "plugin:assign" },
    )
    hooks.register(
      {
        "tool.execute.before": async (_input, output) => {
          seenByThird.push(structuredClone(output.args))
          // Replacement by return value.
          return { args: { ...(output.args as object), workdir: "/tmp" } }
        },
      },
      { source: "plugin:return" },
    )
    const original = { command: "ls" }
    const received: unknown[] = []
    const settled = await settleWith(hooks, original, (args) => {
      received.push(args)
      return "ok"
    })
    expect(seenBySecond).toEqual([{ command: "ls -la" }])
    expect(seenByThird).toEqual([{ command: "ls -la", timeout: 5000 }])
    expect(received).toEqual([{ command: "ls -la", timeout: 5000, workdir: "/tmp" }])
    expect(settled).toEqual({ action: "ran", output: "ok" })
    expect(original).toEqual({ command: "ls" }) // the caller's object is untouched
  })

  it("hooks see the call's identity, read-only", async () => {
    const { hooks } = setup()
    const inputs: BeforeInput[] = []
    hooks.register(
      {
        "tool.execute.before": (input) => {
          inputs.push(input)
          ;(input as { tool: string }).tool = "hacked"
        },
      },
      { source: "plugin:id" },
    )
    const outcome = await hooks.runBefore(call, {})
    // Assigning to a frozen object throws in strict mode: the hook failed, the identity did not change.
    expect(outcome.action).toBe("fail")
    expect(inputs[0]).toEqual(call)
    expect(call.tool).toBe("bash")
  })

  it("denies with a returned {deny}: a model-visible error with the reason; later hooks do not run", async () => {
    const { hooks, reports } = setup()
    let later = false
    hooks.register(
      { "tool.execute.before": () => ({ deny: "no network commands" }) },
      { source: "plugin:guard" },
    )
    hooks.register(
      {
        "tool.execute.before": () => {
          later = true
        },
      },
      { source: "plugin:later" },
    )
    const outcome = await settleWith(hooks, { command: "curl x" }, () => {
      throw new Error("the tool must not run")
    })
    expect(outcome).toMatchObject({ action: "deny", reason: "no network commands", source: "plugin:guard" })
    expect(outcome.action === "deny" && outcome.message).toBe(
      "The call to bash was denied by plugin plugin:guard: no network commands",
    )
    expect(later).toBe(false)
    expect(reports).toEqual([]) // a deny is a decision, not a failure
  })

  it("denies with a thrown HookDenied", async () => {
    const { hooks, reports } = setup()
    hooks.register(
      {
        "tool.execute.before": () => {
          throw new HookDenied("outside the sandbox")
        },
      },
      { source: "plugin:sandbox" },
    )
    const outcome = await hooks.runBefore(call, {})
    expect(outcome).toMatchObject({ action: "deny", reason: "outside the sandbox", source: "plugin:sandbox" })
    expect(reports).toEqual([])
  })

  it("a hook that throws fails the call with an error naming the plugin, and is reported", async () => {
    const { hooks, reports } = setup()
    let later = false
    hooks.register(
      {
        "tool.execute.before": (_input, output) => {
          output.args = { command: "rewritten" }
        },
      },
      { source: "plugin:ok" },
    )
    hooks.register(
      {
        "tool.execute.before": async () => {
          throw new Error("Do not read .env files")
        },
      },
      { source: "plugin:env-guard" },
    )
    hooks.register(
      {
        "tool.execute.before": () => {
          later = true
        },
      },
      { source: "plugin:later" },
    )
    const outcome = await settleWith(hooks, { command: "cat .env" }, () => {
      throw new Error("the tool must not run")
    })
    expect(outcome).toMatchObject({
      action: "fail",
      source: "plugin:env-guard",
      args: { command: "rewritten" },
      message: "Plugin plugin:env-guard failed in tool.execute.before for bash: Do not read .env files",
    })
    expect(later).toBe(false)
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({ hook: "tool.execute.before", source: "plugin:env-guard" })
  })

  it("short-circuits with a result: the tool is not executed, the result is normalised", async () => {
    const { hooks } = setup()
    let later = false
    hooks.register(
      {
        "tool.execute.before": (_input, output) => {
          output.args = { command: "cached" }
          return { result: { output: "from cache", metadata: { cached: true } } }
        },
      },
      { source: "plugin:cache" },
    )
    hooks.register(
      {
        "tool.execute.before": () => {
          later = true
        },
      },
      { source: "plugin:later" },
    )
    const outcome = await settleWith(hooks, { command: "ls" }, () => {
      throw new Error("the tool must not run")
    })
    expect(outcome).toEqual({
      action: "result",
      source: "plugin:cache",
      args: { command: "cached" },
      result: { title: "bash", output: "from cache", metadata: { cached: true }, attachments: [] },
    })
    expect(later).toBe(false)
  })

  it("an invalid short-circuit result fails the call, naming the plugin", async () => {
    const { hooks, reports } = setup()
    hooks.register(
      { "tool.execute.before": () => ({ result: { output: 42 } as never }) },
      { source: "plugin:bad" },
    )
    const outcome = await hooks.runBefore(call, {})
    expect(outcome).toMatchObject({ action: "fail", source: "plugin:bad" })
    expect(outcome.action === "fail" && outcome.message).toMatch(/plugin:bad .*output must be a string/)
    expect(reports).toHaveLength(1)
  })
})

describe("tool.execute.after", () => {
  it("returns the result unchanged (as a copy) without hooks", async () => {
    const { hooks } = setup()
    const final = await hooks.runAfter(afterInput, result)
    expect(final).toEqual({ ...result, attachments: [] })
    expect(final.metadata).not.toBe(result.metadata)
  })

  it("hooks change the result by mutating output or returning a replacement, each seeing the previous", async () => {
    const { hooks } = setup()
    const seen: string[] = []
    hooks.register(
      {
        "tool.execute.after": (input, output) => {
          expect(input.args).toEqual({ command: "ls" })
          output.output = output.output.toUpperCase()
          output.metadata.redacted = true
        },
      },
      { source: "plugin:upper" },
    )
    hooks.register(
      {
        "tool.execute.after": async (_input, output) => {
          seen.push(output.output)
          return { title: `${output.title} (checked)`, output: `${output.output}\n[checked]` }
        },
      },
      { source: "plugin:check" },
    )
    const final = await hooks.runAfter(afterInput, result)
    expect(seen).toEqual(["A\nB"])
    expect(final).toEqual({
      title: "ls (checked)",
      output: "A\nB\n[checked]",
      metadata: { exit: 0, redacted: true },
      attachments: [],
    })
    expect(result).toEqual({ title: "ls", output: "a\nb", metadata: { exit: 0 } }) // caller's object untouched
  })

  it("a hook that throws is reported with its source; its changes are dropped; the call goes on", async () => {
    const { hooks, reports } = setup()
    hooks.register(
      {
        "tool.execute.after": (_input, output) => {
          output.output = "half-done"
          output.metadata.partial = true
          throw new Error("oops")
        },
      },
      { source: "plugin:broken" },
    )
    hooks.register(
      {
        "tool.execute.after": (_input, output) => {
          output.title = "second ran"
        },
      },
      { source: "plugin:fine" },
    )
    const final = await hooks.runAfter(afterInput, result)
    expect(final).toEqual({ title: "second ran", output: "a\nb", metadata: { exit: 0 }, attachments: [] })
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({ hook: "tool.execute.after", source: "plugin:broken" })
    expect(reports[0]!.message).toBe("Plugin plugin:broken failed in tool.execute.after: oops")
  })

  it("an invalid result from a hook is reported and ignored", async () => {
    const { hooks, reports } = setup()
    hooks.register({ "tool.execute.after": () => ({ output: 42 as never }) }, { source: "plugin:num" })
    hooks.register(
      { "tool.execute.after": () => ({ attachments: [{ url: "x" }] as never }) },
      { source: "plugin:file" },
    )
    const final = await hooks.runAfter(afterInput, result)
    expect(final.output).toBe("a\nb")
    expect(final.attachments).toEqual([])
    expect(reports.map((report) => report.source)).toEqual(["plugin:num", "plugin:file"])
    expect(reports[0]!.message).toMatch(/output must be a string; its changes were ignored/)
  })
})

describe("permission.ask", () => {
  it("without hooks, keeps the engine's status", async () => {
    const { hooks } = setup()
    expect(await hooks.decidePermission(ask)).toEqual({ status: "ask" })
    expect(await hooks.decidePermission(ask, "allow")).toEqual({ status: "allow" })
  })

  it("hooks decide in order, each seeing the previous decision; the source is recorded", async () => {
    const { hooks } = setup()
    const seen: string[] = []
    hooks.register(
      {
        "permission.ask": (input, output) => {
          if (input.permission === "bash") output.status = "allow"
        },
      },
      { source: "plugin:allow-bash" },
    )
    hooks.register(
      {
        "permission.ask": (input, output) => {
          seen.push(output.status)
          if (input.patterns.some((pattern) => pattern.startsWith("rm "))) return { status: "deny" }
        },
      },
      { source: "plugin:no-rm" },
    )
    hooks.register(
      {
        "permission.ask": (_input, output) => {
          seen.push(output.status)
        },
      },
      { source: "plugin:observer" },
    )
    expect(await hooks.decidePermission(ask)).toEqual({ status: "deny", source: "plugin:no-rm" })
    expect(seen).toEqual(["allow", "deny"])
    seen.length = 0
    expect(await hooks.decidePermission({ ...ask, patterns: ["ls"] })).toEqual({
      status: "allow",
      source: "plugin:allow-bash",
    })
  })

  it("a throwing or invalid hook is reported and does not change the decision", async () => {
    const { hooks, reports } = setup()
    hooks.register(
      {
        "permission.ask": (_input, output) => {
          output.status = "allow"
          throw new Error("fail")
        },
      },
      { source: "plugin:throws" },
    )
    hooks.register({ "permission.ask": () => ({ status: "yes" as never }) }, { source: "plugin:invalid" })
    expect(await hooks.decidePermission(ask)).toEqual({ status: "ask" })
    expect(reports.map((report) => report.source)).toEqual(["plugin:throws", "plugin:invalid"])
  })
})

describe("tool.definition", () => {
  const definition = {
    description: "Runs a command",
    parameters: { type: "object", properties: { command: { type: "string" } } },
  }

  it("rewrites what the model sees, without touching the original", async () => {
    const { hooks } = setup()
    hooks.register(
      {
        "tool.definition": (input, output) => {
          if (input.toolID !== "bash") return
          output.description += "\nNever run sudo."
          ;(output.parameters.properties as Record<string, unknown>).timeout = { type: "number" }
        },
      },
      { source: "plugin:doc" },
    )
    const rewritten = await hooks.rewriteDefinition({ toolID: "bash" }, definition)
    expect(rewritten.description).toBe("Runs a command\nNever run sudo.")
    expect(rewritten.parameters).toEqual({
      type: "object",
      properties: { command: { type: "string" }, timeout: { type: "number" } },
    })
    expect(definition.parameters.properties).toEqual({ command: { type: "string" } })
    expect(await hooks.rewriteDefinition({ toolID: "read" }, definition)).toEqual(definition)
  })

  it("a throwing or invalid hook is reported and ignored", async () => {
    const { hooks, reports } = setup()
    hooks.register(
      {
        "tool.definition": (_input, output) => {
          output.description = "changed"
          throw new Error("boom")
        },
      },
      { source: "plugin:throws" },
    )
    hooks.register(
      { "tool.definition": () => ({ parameters: "nope" as never }) },
      { source: "plugin:invalid" },
    )
    expect(await hooks.rewriteDefinition({ toolID: "bash" }, definition)).toEqual(definition)
    expect(reports.map((report) => report.source)).toEqual(["plugin:throws", "plugin:invalid"])
  })
})

describe("shell.env", () => {
  it("adds environment, each hook seeing the previous additions", async () => {
    const { hooks } = setup()
    const inputs: unknown[] = []
    hooks.register(
      {
        "shell.env": (input, output) => {
          inputs.push(input)
          output.env.NODE_ENV = "test"
        },
      },
      { source: "plugin:a" },
    )
    hooks.register(
      { "shell.env": (_input, output) => ({ env: { ...output.env, TOKEN_FROM: output.env.NODE_ENV! } }) },
      { source: "plugin:b" },
    )
    const env = await hooks.shellEnv({ cwd: "/repo", sessionID: "ses_1", callID: "call_1" }, { CI: "1" })
    expect(env).toEqual({ CI: "1", NODE_ENV: "test", TOKEN_FROM: "test" })
    expect(inputs).toEqual([{ cwd: "/repo", sessionID: "ses_1", callID: "call_1" }])
  })

  it("non-string values and throwing hooks are reported and ignored", async () => {
    const { hooks, reports } = setup()
    hooks.register(
      {
        "shell.env": (_input, output) => {
          ;(output.env as Record<string, unknown>).PORT = 3000
        },
      },
      { source: "plugin:number" },
    )
    hooks.register(
      {
        "shell.env": (_input, output) => {
          output.env.LEAK = "x"
          throw new Error("no")
        },
      },
      { source: "plugin:throws" },
    )
    hooks.register(
      {
        "shell.env": (_input, output) => {
          output.env.OK = "yes"
        },
      },
      { source: "plugin:ok" },
    )
    expect(await hooks.shellEnv({ cwd: "/" })).toEqual({ OK: "yes" })
    expect(reports.map((report) => report.source)).toEqual(["plugin:number", "plugin:throws"])
    expect(reports[0]!.message).toMatch(/PORT must be a string/)
  })
})

describe("default error reporting", () => {
  it("logs a failing hook to stderr with its source", async () => {
    const writes: string[] = []
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      writes.push(String(chunk))
      return true
    })
    const hooks = new Hooks()
    hooks.register(
      {
        "shell.env": () => {
          throw new Error("env broke")
        },
      },
      { source: "plugin:loud" },
    )
    expect(await hooks.shellEnv({ cwd: "/" })).toEqual({})
    expect(writes.join("")).toMatch(
      /\[toolbelt:hooks\] error Plugin plugin:loud failed in shell.env: env broke/,
    )
  })
})
