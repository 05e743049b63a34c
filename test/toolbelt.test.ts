import { spawn, spawnSync } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { createToolbelt, Tool } from "agent-toolbelt"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { internals } from "../src/compose/internals.ts"
import { PROCESS_GONE } from "../src/platform/store/journal.ts"
import type { ToolPart } from "../src/platform/store/part.ts"
import { openStore } from "../src/platform/store/store.ts"

const root = resolve(import.meta.dirname, "..")
const plugin = join(root, "test", "fixtures", "plugin.ts")
const hooksPlugin = join(root, "test", "fixtures", "hooks-plugin.ts")
let project: string
let dataDir: string
let home: string

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "toolbelt-project-"))
  home = await mkdtemp(join(tmpdir(), "toolbelt-home-"))
  dataDir = join(home, "data")
})

afterEach(async () => {
  await rm(project, { recursive: true, force: true })
  await rm(home, { recursive: true, force: true })
})

const env = () => ({ PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config") })
const open = (extra: Parameters<typeof createToolbelt>[0] = {}) =>
  createToolbelt({
    directory: project,
    dataDir,
    env: env(),
    sweep: false,
    config: { plugin: [plugin] },
    ...extra,
  })

describe("saved approvals", () => {
  it('"always" is saved for the project, survives a restart, and can be revoked', async () => {
    let asked = 0
    const first = await open({
      decide: async () => {
        asked++
        return "always"
      },
    })
    expect(await first.call({ tool: "outside", input: {} })).toMatchObject({ status: "completed" })
    first.close()
    expect(asked).toBe(1)

    const second = await open() // no one to ask: an ask would wait forever, so it must not ask
    expect(await second.call({ tool: "outside", input: {} })).toMatchObject({ status: "completed" })
    const saved = internals(second).permission.approvals()
    expect(saved).toMatchObject([{ permission: "external_directory", pattern: "/elsewhere/*" }])
    second.close()

    const list = spawnSync(
      process.execPath,
      [join(root, "bin", "toolbelt.js"), "permissions", "list", "--json"],
      {
        cwd: project,
        env: { ...env(), TOOLBELT_DATA_DIR: dataDir },
        encoding: "utf8",
      },
    )
    expect(list.status).toBe(0)
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: saved[0]!.id, pattern: "/elsewhere/*" }])
    const revoke = spawnSync(
      process.execPath,
      [join(root, "bin", "toolbelt.js"), "permissions", "revoke", saved[0]!.id],
      { cwd: project, env: { ...env(), TOOLBELT_DATA_DIR: dataDir }, encoding: "utf8" },
    )
    expect(revoke.status).toBe(0)

    const third = await open({ decide: async () => "reject" })
    expect(await third.call({ tool: "outside", input: {} })).toMatchObject({
      status: "error",
      kind: "permission",
    })
    third.close()
  })

  it("a configured deny beats a saved approval", async () => {
    const first = await open({ decide: async () => "always" })
    await first.call({ tool: "outside", input: {} })
    first.close()
    const denied = await open({
      config: { plugin: [plugin], permission: { external_directory: { "/elsewhere/*": "deny" } } },
    })
    const result = await denied.call({ tool: "outside", input: {} })
    expect(result).toMatchObject({ status: "error", kind: "permission" })
    expect(result.status === "error" && result.error).toMatch(
      /prevents you from using this specific tool call/,
    )
    denied.close()
  })

  it("hides a tool whose last rule is `* deny`, and refuses an unknown agent", async () => {
    const toolbelt = await open({
      config: { plugin: [plugin], permission: { echo: "deny", fail: { "*": "deny", x: "allow" } } },
    })
    const names = (await toolbelt.tools()).map((tool) => tool.name)
    expect(names).not.toContain("echo")
    expect(names).toContain("fail")
    await expect(toolbelt.call({ tool: "echo", input: { text: "x" }, agent: "nobody" })).rejects.toThrow(
      /Unknown agent "nobody"/,
    )
    await toolbelt.close()
  })
})

describe("journal and events", () => {
  it("records and publishes every state of a call, in order", async () => {
    const toolbelt = await open()
    const events: string[] = []
    toolbelt.subscribe("message.part.updated", (event) => {
      events.push(event.properties.part.state.status)
    })
    const result = await toolbelt.call({
      tool: "echo",
      input: { text: "hi" },
      sessionID: "ses_j",
      callID: "call_j",
    })
    await internals(toolbelt).bus.idle()
    expect(events).toEqual(["pending", "running", "completed"])
    expect(internals(toolbelt).store.parts.get("ses_j", "call_j")).toMatchObject({
      tool: "echo",
      state: { status: "completed", output: "hi" },
    })
    expect(result.part.state.status).toBe("completed")
    await toolbelt.close()
  })

  it("a call costs two commits: its request and start share one, durable before the tool runs", async () => {
    const toolbelt = await open({ config: {} })
    const events: string[] = []
    toolbelt.subscribe("message.part.updated", (event) => {
      events.push(event.properties.part.state.status)
    })
    let seenByPeer: unknown
    toolbelt.register({
      look: Tool.make({
        description: "Looks at its own part through another connection",
        input: z.object({}),
        execute: () => {
          const peer = openStore({ path: internals(toolbelt).store.path })
          try {
            seenByPeer = peer.parts.get("ses_w", "call_w")?.state.status
          } finally {
            peer.close()
          }
          return "looked"
        },
      }),
    })
    const before = internals(toolbelt).store.journal.commits
    const result = await toolbelt.call({ tool: "look", input: {}, sessionID: "ses_w", callID: "call_w" })
    expect(result.status).toBe("completed")
    expect(internals(toolbelt).store.journal.commits - before).toBe(2)
    expect(seenByPeer).toBe("running")
    expect(
      internals(toolbelt)
        .store.journal.entries("ses_w", "call_w")
        .map((entry) => entry.kind),
    ).toEqual(["requested", "started", "finished"])
    await internals(toolbelt).bus.idle()
    expect(events).toEqual(["pending", "running", "completed"])
    await toolbelt.close()
  })

  it("a read is in the shared store once the call is reported: another process may then overwrite the file", async () => {
    const file = join(project, "shared.txt")
    await writeFile(file, "before\n")
    const toolbelt = await open({ config: {} })
    const read = await toolbelt.call({ tool: "read", input: { filePath: file }, sessionID: "ses_shared" })
    expect(read.status).toBe("completed")
    // Synchronous: this process's event loop cannot commit anything while the other one runs.
    const write = (session: string) =>
      spawnSync(
        process.execPath,
        [
          join(root, "bin", "toolbelt.js"),
          "call",
          "write",
          JSON.stringify({ filePath: file, content: `by ${session}\n` }),
          "--session",
          session,
          "--json",
        ],
        { cwd: project, env: { ...env(), TOOLBELT_DATA_DIR: dataDir }, encoding: "utf8" },
      )
    const unread = write("ses_other")
    expect(unread.status).toBe(1)
    expect(JSON.parse(unread.stdout).error).toMatch(/must read the file/)
    const after = write("ses_shared")
    expect(JSON.parse(after.stdout)).toMatchObject({ status: "completed" })
    await expect(readFile(file, "utf8")).resolves.toBe("by ses_shared\n")
    await toolbelt.close()
  })

  it("a read-only call answered first (recordAfterReply) is recorded whole in one commit just after", async () => {
    const file = join(project, "seen.txt")
    await writeFile(file, "seen\n")
    const toolbelt = await open({ config: {} })
    const before = internals(toolbelt).store.journal.commits
    const result = await toolbelt.call({
      tool: "read",
      input: { filePath: file },
      sessionID: "ses_after",
      callID: "call_after",
      recordAfterReply: true,
    })
    expect(result.status).toBe("completed")
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(internals(toolbelt).store.journal.commits - before).toBe(1)
    expect(
      internals(toolbelt)
        .store.journal.entries("ses_after", "call_after")
        .map((entry) => entry.kind),
    ).toEqual(["requested", "started", "finished"])
    expect(internals(toolbelt).store.parts.get("ses_after", "call_after")?.state.status).toBe("completed")
    // The stamp rode along: another process now sees the read.
    const peer = openStore({ path: internals(toolbelt).store.path })
    try {
      expect(peer.readLedger.get("ses_after", file)).toBeDefined()
    } finally {
      peer.close()
    }
    await toolbelt.close()
  })

  it("never runs a finished call twice: the same session and call id return the record", async () => {
    const toolbelt = await open({ config: {} })
    let runs = 0
    toolbelt.register({
      count: Tool.make({
        description: "counts",
        input: z.object({}),
        execute: () => `run ${++runs}`,
      }),
    })
    const first = await toolbelt.call({ tool: "count", input: {}, sessionID: "ses_i", callID: "call_i" })
    const again = await toolbelt.call({ tool: "count", input: {}, sessionID: "ses_i", callID: "call_i" })
    expect(runs).toBe(1)
    expect(again).toMatchObject({
      status: "completed",
      output: first.status === "completed" ? first.output : "",
    })
    await toolbelt.close()
  })

  it("publishes permission.asked and permission.replied, and journals the pending ask", async () => {
    const toolbelt = await open()
    const seen: string[] = []
    toolbelt.subscribe("permission.asked", (event) => {
      seen.push(`asked ${event.properties.permission}`)
      expect(toolbelt.permission.list()).toHaveLength(1)
      toolbelt.permission.reply({ requestID: event.properties.id, reply: "once" })
    })
    toolbelt.subscribe("permission.replied", (event) => {
      seen.push(`replied ${event.properties.reply}`)
    })
    expect(await toolbelt.call({ tool: "outside", input: {} })).toMatchObject({ status: "completed" })
    await internals(toolbelt).bus.idle()
    expect(seen).toEqual(["asked external_directory", "replied once"])
    expect(internals(toolbelt).store.journal.pendingAsks()).toEqual([])
    await toolbelt.close()
  })

  it("a process killed mid-call reopens consistent: the call is interrupted, never re-run", async () => {
    await writeFile(join(project, "toolbelt.json"), JSON.stringify({ plugin: [plugin] }))
    const child = spawn(
      process.execPath,
      [join(root, "bin", "toolbelt.js"), "call", "slow", "{}", "--session", "ses_crash", "--json"],
      // The project's plugin runs only in a trusted project.
      {
        cwd: project,
        env: { ...env(), TOOLBELT_DATA_DIR: dataDir, TOOLBELT_TRUST: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    )
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("slow tool started")) resolve()
      })
      child.on("exit", () => reject(new Error("the child exited before the tool started")))
    })
    child.kill("SIGKILL")
    await new Promise((r) => child.on("exit", r))

    const toolbelt = await open()
    const interrupted = toolbelt.recovered.interrupted.filter(
      (part: ToolPart) => part.sessionID === "ses_crash",
    )
    expect(interrupted).toHaveLength(1)
    expect(interrupted[0]).toMatchObject({
      tool: "slow",
      state: { status: "error", error: PROCESS_GONE, metadata: { interrupted: true } },
    })
    expect(internals(toolbelt).store.parts.open("ses_crash")).toEqual([])
    expect(internals(toolbelt).store.db.prepare("PRAGMA integrity_check").get()).toEqual({
      integrity_check: "ok",
    })
    await toolbelt.close()
  })
})

describe("plugin hooks", () => {
  it("tool.execute.before rewrites the arguments the tool receives; permission.ask can allow", async () => {
    const toolbelt = await open({ config: { plugin: [plugin, hooksPlugin] } })
    expect(await toolbelt.call({ tool: "echo", input: { text: "hey" } })).toMatchObject({ output: "hey!" })
    // no decide: without the hook this ask would wait for a reply forever
    expect(await toolbelt.call({ tool: "outside", input: {} })).toMatchObject({ status: "completed" })
    await toolbelt.close()
  })

  it("tool.definition rewrites what the model sees", async () => {
    const toolbelt = await open()
    internals(toolbelt).hooks.register(
      {
        "tool.definition": (input, output) => {
          if (input.toolID === "echo") output.description = "Repeats what you say."
        },
      },
      { source: "test" },
    )
    const echo = (await toolbelt.tools()).find((tool) => tool.name === "echo")
    expect(echo?.description).toBe("Repeats what you say.")
    await toolbelt.close()
  })

  it("loads tool files from .toolbelt/tools by itself", async () => {
    const { mkdir } = await import("node:fs/promises")
    await mkdir(join(project, ".toolbelt", "tools"), { recursive: true })
    await writeFile(
      join(project, ".toolbelt", "tools", "shout.ts"),
      `import { tool } from "toolbelt/plugin"
export default tool({
  description: "Shouts.",
  args: { text: tool.schema.string() },
  async execute({ text }: { text: string }) { return text.toUpperCase() },
})
`,
    )
    // The project's tool files load only in a trusted project.
    const toolbelt = await open({ config: {}, trust: true })
    expect(toolbelt.pluginErrors).toEqual([])
    expect(internals(toolbelt).registry.resolve("shout")?.source).toBe("custom:.toolbelt/tools/shout.ts")
    expect(await toolbelt.call({ tool: "shout", input: { text: "hey" } })).toMatchObject({ output: "HEY" })
    await toolbelt.close()
  })
})
