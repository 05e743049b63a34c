import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { DEFAULT_LIMITS } from "../../platform/text/limits.ts"
import { Hooks } from "../hooks/hooks.ts"
import { OutputStore } from "../output/store.ts"
import type { Rule } from "../permission/rule.ts"
import { RulePermissions } from "../permission/simple.ts"
import { Registry } from "../registry/registry.ts"
import * as Tool from "../tool/index.ts"
import { DoomLoopGuard } from "./doom-loop.ts"
import { type SettleDeps, settle } from "./settle.ts"

let dir: string
let registry: Registry
let received: unknown[]

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolbelt-settle-hooks-"))
  registry = new Registry()
  received = []
  registry.register({
    echo: Tool.make({
      description: "echo",
      input: z.object({ text: z.string() }),
      execute: (input) => {
        received.push(input)
        return input.text
      },
    }),
    other: Tool.make({ description: "other", input: z.object({}), execute: () => "other" }),
  })
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function deps(
  extra: Partial<SettleDeps> = {},
  rules: Rule[] = [{ permission: "*", pattern: "*", action: "allow" }],
) {
  return {
    registry,
    permission: new RulePermissions({ rules }),
    store: new OutputStore({ dir }),
    limits: DEFAULT_LIMITS,
    ...extra,
  } satisfies SettleDeps
}

let n = 0
const call = (tool: string, input: unknown, sessionID = "ses") => ({
  tool,
  input,
  sessionID,
  messageID: "msg",
  agent: "build",
  callID: `call_${n++}`,
})

describe("tool.execute.before / after hooks in settlement", () => {
  it("rewritten arguments are what the tool receives (and what is validated)", async () => {
    const hooks = new Hooks()
    hooks.register(
      {
        "tool.execute.before": (_input, output) => {
          output.args = { text: `${(output.args as { text: string }).text} (rewritten)` }
        },
      },
      { source: "plugin:rewrite" },
    )
    const result = await settle(call("echo", { text: "hi" }), deps({ hooks }))
    expect(received).toEqual([{ text: "hi (rewritten)" }])
    expect(result).toMatchObject({ status: "completed", output: "hi (rewritten)" })
  })

  it("a deny never runs the tool and tells the model why", async () => {
    const hooks = new Hooks()
    hooks.register(
      { "tool.execute.before": () => ({ deny: "echo is disabled on Fridays" }) },
      { source: "plugin:policy" },
    )
    const result = await settle(call("echo", { text: "hi" }), deps({ hooks }))
    expect(received).toEqual([])
    expect(result.status).toBe("error")
    expect(result.status === "error" && result.error).toContain("echo is disabled on Fridays")
  })

  it("a short-circuit result skips the tool but still passes the after hooks and bounding", async () => {
    const hooks = new Hooks()
    const big = Array.from({ length: 3000 }, (_, i) => `cached ${i}`).join("\n")
    hooks.register(
      { "tool.execute.before": () => ({ result: { title: "cache", output: big } }) },
      { source: "plugin:cache" },
    )
    hooks.register(
      {
        "tool.execute.after": (_input, output) => {
          output.metadata = { ...output.metadata, seen: true }
        },
      },
      { source: "plugin:audit" },
    )
    const result = await settle(call("echo", { text: "hi" }), deps({ hooks }))
    expect(received).toEqual([])
    expect(result).toMatchObject({
      status: "completed",
      title: "cache",
      metadata: { seen: true, truncated: true },
    })
  })

  it("an after hook can change the result the model sees", async () => {
    const hooks = new Hooks()
    hooks.register({ "tool.execute.after": () => ({ output: "redacted" }) }, { source: "plugin:redact" })
    const result = await settle(call("echo", { text: "secret" }), deps({ hooks }))
    expect(result).toMatchObject({ status: "completed", output: "redacted" })
  })

  it("a before hook that throws fails the call, naming the plugin", async () => {
    const hooks = new Hooks({ onError: () => {} })
    hooks.register(
      {
        "tool.execute.before": () => {
          throw new Error("kaboom")
        },
      },
      { source: "plugin:flaky" },
    )
    const result = await settle(call("echo", { text: "x" }), deps({ hooks }))
    expect(result).toMatchObject({ status: "error", kind: "hook" })
    expect(result.status === "error" && result.error).toContain("plugin:flaky")
    expect(received).toEqual([])
  })
})

describe("doom loop in settlement", () => {
  it("the third identical call asks doom_loop; a deny stops the turn without running it", async () => {
    const rules: Rule[] = [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "doom_loop", pattern: "*", action: "deny" },
    ]
    const d = deps({ doomLoop: new DoomLoopGuard() }, rules)
    expect((await settle(call("echo", { text: "same" }), d)).status).toBe("completed")
    expect((await settle(call("echo", { text: "same" }), d)).status).toBe("completed")
    const third = await settle(call("echo", { text: "same" }), d)
    expect(third).toMatchObject({ status: "error", kind: "loop", blocked: true })
    expect(third.status === "error" && third.error).toMatch(
      /^The loop guard stopped this call: echo \{"text":"same"\}: it was the 3rd identical call in a row and the 2 before it got the same result, and the rule "doom_loop": "deny" refuses that;/,
    )
    expect(received).toHaveLength(2)
    // another session is not affected
    expect((await settle(call("echo", { text: "same" }, "other-session"), d)).status).toBe("completed")
  })

  it("a call whose answer changed in between is never refused, however often it is made", async () => {
    let version = 0
    registry.register({
      look: Tool.make({ description: "look", input: z.object({}), execute: () => `version ${version}` }),
    })
    const rules: Rule[] = [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "doom_loop", pattern: "*", action: "deny" },
    ]
    const d = deps({ doomLoop: new DoomLoopGuard() }, rules)
    for (let i = 0; i < 50; i++) {
      version++
      expect((await settle(call("look", {}), d)).status).toBe("completed")
    }
    // Nothing changes any more: the third identical answer would be a loop.
    expect((await settle(call("look", {}), d)).status).toBe("completed")
    expect(await settle(call("look", {}), d)).toMatchObject({ status: "error", kind: "loop" })
  })

  it("a read-only call is judged on its own answer: the first read after a change is never refused", async () => {
    let content = "one"
    const seen: string[] = []
    registry.register({
      peek: Tool.make({
        description: "peek",
        input: z.object({}),
        execute: () => {
          seen.push(content)
          return content
        },
        annotations: { readOnly: true },
      }),
    })
    const rules: Rule[] = [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "doom_loop", pattern: "*", action: "deny" },
    ]
    const d = deps({ doomLoop: new DoomLoopGuard() }, rules)
    const statuses: string[] = []
    const peek = async () => statuses.push((await settle(call("peek", {}), d)).status)
    await peek()
    await peek()
    content = "two" // changed after two identical answers
    await peek()
    await peek()
    await peek() // "two" a third time in a row: a loop
    expect(statuses).toEqual(["completed", "completed", "completed", "completed", "error"])
    expect(seen).toEqual(["one", "one", "two", "two", "two"])
  })

  it("a read-only call that fails the same way again and again is a loop too", async () => {
    registry.register({
      missing: Tool.make({
        description: "missing",
        input: z.object({}),
        execute: () => {
          throw new Tool.ToolFailure("File not found: /nope")
        },
        annotations: { readOnly: true },
      }),
    })
    const rules: Rule[] = [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "doom_loop", pattern: "*", action: "deny" },
    ]
    const d = deps({ doomLoop: new DoomLoopGuard() }, rules)
    expect(await settle(call("missing", {}), d)).toMatchObject({ kind: "failure" })
    expect(await settle(call("missing", {}), d)).toMatchObject({ kind: "failure" })
    expect(await settle(call("missing", {}), d)).toMatchObject({ kind: "loop" })
  })

  it("a tool's poll is never counted; once it stops being one, repeats count again", async () => {
    let running = true
    registry.register({
      watch: Tool.make({
        description: "watch",
        input: z.object({}),
        execute: () => (running ? "still running, no new output" : "done"),
        pollable: ({ output }) => output !== "done",
      }),
    })
    const rules: Rule[] = [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "doom_loop", pattern: "*", action: "deny" },
    ]
    const d = deps({ doomLoop: new DoomLoopGuard() }, rules)
    for (let i = 0; i < 20; i++) expect((await settle(call("watch", {}), d)).status).toBe("completed")
    running = false
    expect((await settle(call("watch", {}), d)).status).toBe("completed")
    expect((await settle(call("watch", {}), d)).status).toBe("completed")
    expect(await settle(call("watch", {}), d)).toMatchObject({ status: "error", kind: "loop" })
  })

  it("with no one to ask, the refusal is one sentence: the call, the count, the rule and its source, the fix", async () => {
    const rules: Rule[] = [
      { permission: "*", pattern: "*", action: "allow" },
      {
        permission: "doom_loop",
        pattern: "*",
        action: "ask",
        source: { origin: "toolbelt's defaults", key: "permission.doom_loop" },
      },
    ]
    const d = {
      ...deps({ doomLoop: new DoomLoopGuard() }, rules),
      permission: new RulePermissions({
        rules,
        decide: async () => ({ unanswered: "stdin is not a terminal and --yes was not given" }),
      }),
    }
    await settle(call("echo", { text: "same" }), d)
    await settle(call("echo", { text: "same" }), d)
    const third = await settle(call("echo", { text: "same" }), d)
    expect(third).toMatchObject({ status: "error", kind: "loop", blocked: true })
    const error = third.status === "error" ? third.error : ""
    expect(error).toBe(
      'The loop guard stopped this call: echo {"text":"same"}: it was the 3rd identical call in a row and the 2 before it got the same result, and the rule "doom_loop": "ask" (permission.doom_loop in toolbelt\'s defaults) needs a person\'s approval for that, but no one could be asked; to allow it, set "doom_loop": {"threshold": N} with N above 3, or "permission": {"doom_loop": "allow"}, in your ~/.config/toolbelt/toolbelt.json (or the project\'s toolbelt.json, once the project is trusted), or try something else.',
    )
    expect(error).not.toMatch(/user rejected/i)
    expect(received).toHaveLength(2)
  })

  it("a cycle refused by a deny names the cycle and the rule's file and key", async () => {
    const rules: Rule[] = [
      { permission: "*", pattern: "*", action: "allow" },
      {
        permission: "doom_loop",
        pattern: "*",
        action: "deny",
        source: { origin: "/p/toolbelt.json", key: "permission.doom_loop" },
      },
    ]
    const d = deps({ doomLoop: new DoomLoopGuard() }, rules)
    const results = []
    for (let i = 0; i < 3; i++) {
      results.push(await settle(call("echo", { text: "a" }), d))
      results.push(await settle(call("other", {}), d))
    }
    expect(results.slice(0, 5).map((result) => result.status)).toEqual(Array(5).fill("completed"))
    const last = results[5]!
    expect(last.status === "error" && last.error).toBe(
      'The loop guard stopped this call: other {}: it would repeat the cycle echo, other a 3rd time with the same results, and the rule "doom_loop": "deny" (permission.doom_loop in /p/toolbelt.json) refuses that; to allow it, set "doom_loop": {"threshold": N} with N above 3, or "permission": {"doom_loop": "allow"}, in /p/toolbelt.json, or try something else.',
    )
  })

  it("detects a short cycle (A,B,A,B,A,B) and runs on when doom_loop is allowed", async () => {
    const asked: string[] = []
    const guard = new DoomLoopGuard()
    const rules: Rule[] = [
      { permission: "*", pattern: "*", action: "allow" },
      { permission: "doom_loop", pattern: "*", action: "ask" },
    ]
    const d = {
      ...deps({ doomLoop: guard }, rules),
      permission: new RulePermissions({
        rules,
        decide: async (request) => {
          asked.push(`${request.permission}:${request.patterns.join(",")}`)
          return "once"
        },
      }),
    }
    for (let i = 0; i < 3; i++) {
      await settle(call("echo", { text: "a" }), d)
      await settle(call("other", {}), d)
    }
    expect(asked).toEqual(["doom_loop:echo,other"])
    expect(received).toHaveLength(3)
  })
})
