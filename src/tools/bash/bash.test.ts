import { existsSync } from "node:fs"
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { gone } from "../../platform/shell/run/fixtures/process-gone.ts"
import { sandboxAvailability } from "../../platform/shell/sandbox/index.ts"
import type { ToolPart } from "../../platform/store/part.ts"
import { DEFAULT_LIMITS } from "../../platform/text/limits.ts"
import { Hooks } from "../../runtime/hooks/hooks.ts"
import { OutputStore } from "../../runtime/output/store.ts"
import type { AskRequest, PermissionService } from "../../runtime/permission/service.ts"
import { RulePermissions } from "../../runtime/permission/simple.ts"
import { Registry } from "../../runtime/registry/registry.ts"
import { type CallRequest, type SettleDeps, type Settlement, settle } from "../../runtime/settle/settle.ts"
import { BashTool } from "./bash.ts"

let root: string
let project: string
let storeDir: string
let parts: ToolPart[]
let registry: Registry
let deps: SettleDeps

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "toolbelt-bash-"))
  project = join(root, "project")
  storeDir = join(root, "data", "tool-output")
  await mkdir(project, { recursive: true })
  parts = []
  registry = new Registry()
  registry.register({ bash: BashTool })
  deps = {
    registry,
    permission: new RulePermissions({ rules: [{ permission: "*", pattern: "*", action: "allow" }] }),
    store: new OutputStore({ dir: storeDir }),
    limits: DEFAULT_LIMITS,
    parts: (part) => {
      parts.push(part)
    },
  }
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

let calls = 0
function bash(
  input: Record<string, unknown>,
  options: { extra?: Record<string, unknown>; abort?: AbortSignal; deps?: Partial<SettleDeps> } = {},
): Promise<Settlement> {
  const request: CallRequest = {
    tool: "bash",
    input,
    sessionID: "ses_bash",
    messageID: "msg_1",
    agent: "build",
    callID: `call_${++calls}`,
    extra: { directory: project, outputDir: storeDir, dataDir: join(root, "data"), ...options.extra },
    ...(options.abort ? { abort: options.abort } : {}),
  }
  return settle(request, { ...deps, ...options.deps })
}

function completed(result: Settlement) {
  if (result.status !== "completed") throw new Error(`expected completed, got ${JSON.stringify(result)}`)
  return result
}

function pidsIn(text: string): number[] {
  return [...text.matchAll(/^pid:(\d+)$/gm)].map((match) => Number(match[1]))
}

describe("running a command", () => {
  it("returns the output of echo, with exit 0 and the description in metadata", async () => {
    const result = completed(await bash({ command: "echo hello", description: "Say hello" }))
    expect(result.output).toBe("hello")
    expect(result.title).toBe("Say hello")
    expect(result.metadata).toMatchObject({
      exit: 0,
      truncated: false,
      description: "Say hello",
      output: "hello\n",
    })
  })

  it("reports a non-zero exit code in the text and in metadata", async () => {
    const result = completed(await bash({ command: "echo failing; exit 3" }))
    expect(result.output).toBe("failing\n\n<shell_metadata>\nExit code: 3\n</shell_metadata>")
    expect(result.metadata.exit).toBe(3)
  })

  it("says (no output) when there is none", async () => {
    const result = completed(await bash({ command: "true" }))
    expect(result.output).toBe("(no output)")
  })

  it("merges stderr into stdout in the order it was written", async () => {
    const result = completed(
      await bash({ command: "echo out1; echo err1 >&2; echo out2; echo err2 >&2; ls /nonexistent-dir-x" }),
    )
    expect(result.output.split("\n").slice(0, 4)).toEqual(["out1", "err1", "out2", "err2"])
    expect(result.output).toContain("No such file or directory")
    expect(result.metadata.exit).toBe(2)
  })

  it("streams progress while the command runs", async () => {
    const result = completed(await bash({ command: "echo a && sleep 0.3 && echo b" }))
    expect(result.output).toBe("a\nb")
    const previews = parts
      .filter((part) => part.state.status === "running" && part.state.metadata)
      .map((part) => String((part.state as { metadata?: Record<string, unknown> }).metadata?.output))
    expect(previews).toContain("a\n")
    expect(previews.at(-1)).toBe("a\nb\n")
    expect(new Set(previews).size).toBeGreaterThan(1)
  })

  it("runs in workdir, relative to the project", async () => {
    await mkdir(join(project, "sub"))
    const result = completed(await bash({ command: "pwd", workdir: "sub" }))
    expect(result.output).toBe(join(project, "sub"))
  })

  it("refuses a workdir that does not exist", async () => {
    const result = await bash({ command: "pwd", workdir: "missing" })
    expect(result.status).toBe("error")
    expect(result.status === "error" && result.error).toMatch(/workdir "missing" .* does not exist/)
  })

  it("keeps the command non-interactive and applies the shell.env hook", async () => {
    const hooks = new Hooks()
    hooks.register(
      {
        "shell.env": (input, output) => {
          output.env.FROM_HOOK = `cwd=${input.cwd}`
        },
      },
      {
        source: "plugin:test",
      },
    )
    const result = completed(
      await bash(
        {
          command:
            'echo "$CI $GIT_TERMINAL_PROMPT $PAGER $GIT_PAGER $TERM $FROM_HOOK"; [ -t 0 ] || echo no-tty',
        },
        { extra: { hooks } },
      ),
    )
    expect(result.output).toBe(`1 0 cat cat dumb cwd=${project}\nno-tty`)
  })

  it("has stdin closed: a read gets end of file at once instead of waiting", async () => {
    // With stdin open, the read would wait past the test timeout (the prompt detector is off for reads
    // that print nothing after their prompt for less than its idle time): ending at all is the proof.
    const result = completed(await bash({ command: 'read -p "Continue? " x; echo "read status $?"' }))
    expect(result.output).toBe("read status 1")
  })
})

describe("arguments and settings", () => {
  it("rejects a timeout that is not a positive integer", async () => {
    const result = await bash({ command: "true", timeout: -5 })
    expect(result.status === "error" && result.kind).toBe("invalid")
    expect(result.status === "error" && result.error).toContain("timeout")
  })

  it("rejects a timeout over the maximum, naming it", async () => {
    const result = await bash({ command: "true", timeout: 700_000 })
    expect(result.status === "error" && result.error).toContain("more than the maximum of 600000 ms")
    const raised = completed(
      await bash({ command: "true", timeout: 700_000 }, { extra: { shell: { max_timeout: 900_000 } } }),
    )
    expect(raised.output).toBe("(no output)")
  })

  it("reports a bad configured timeout clearly", async () => {
    const result = await bash({ command: "true" }, { extra: { shell: { timeout: "soon" } } })
    expect(result.status === "error" && result.error).toMatch(
      /shell\.timeout is "soon", but it must be a positive whole number/,
    )
  })

  it("refuses fish and nu as the configured shell", async () => {
    for (const shell of ["fish", "/usr/bin/nu"]) {
      const result = await bash({ command: "true" }, { extra: { shell } })
      expect(result.status === "error" && result.error).toMatch(/cannot be used for commands/)
    }
  })

  it("uses the configured shell", async () => {
    const result = completed(await bash({ command: 'echo "$0"' }, { extra: { shell: "dash" } }))
    expect(result.output).toMatch(/dash$/)
  })

  it("rejects readiness options without run_in_background", async () => {
    const result = await bash({ command: "true", ready_port: 8080 })
    expect(result.status === "error" && result.error).toContain("only apply to background jobs")
  })
})

describe("timeout and abort", () => {
  it("kills the command at the timeout and keeps what it printed", async () => {
    // The sleep outlasts the test timeout: only the 500 ms timeout can end this call.
    const result = completed(await bash({ command: "echo before; sleep 600; echo after", timeout: 500 }))
    expect(result.output).toMatch(
      /^before\n\n<shell_metadata>\nbash tool terminated command after exceeding timeout 500 ms/,
    )
    expect(result.output).toContain("retry with a larger timeout")
    expect(result.output).not.toContain("after\n")
    expect(result.metadata).toMatchObject({ timedOut: true, exit: null })
  })

  it("an abort interrupts the call, with the partial output in metadata", async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 400)
    const result = await bash({ command: "echo partial; sleep 10" }, { abort: controller.signal })
    expect(result).toMatchObject({ status: "error", kind: "interrupted" })
    expect(result.metadata.interrupted).toBe(true)
    expect(String(result.metadata.output)).toContain("partial")
    expect(String(result.metadata.output)).toContain("User aborted the command")
  })

  it("leaves no process behind after a timeout, including background children and daemons", async () => {
    const result = completed(
      await bash({
        command:
          "sleep 100 & echo pid:$!; (setsid sleep 300 & echo pid:$!); sh -c 'sleep 200 & echo pid:$!'; sleep 30",
        timeout: 700,
      }),
    )
    const pids = pidsIn(result.output)
    expect(pids).toHaveLength(3)
    for (const pid of pids) expect(gone(pid)).toBe(true)
    expect(result.metadata.killed).toEqual(expect.arrayContaining(pids))
  })

  it("leaves no process behind after an abort", async () => {
    const controller = new AbortController()
    const seen: number[] = []
    const done = bash(
      { command: "sleep 100 & echo pid:$!; (setsid sleep 300 & echo pid:$!); sleep 30" },
      { abort: controller.signal, deps: { abortGraceMs: 5000 } },
    )
    const deadline = Date.now() + 5000
    while (seen.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      const last = parts.at(-1)
      const output = last?.state.status === "running" ? String(last.state.metadata?.output ?? "") : ""
      seen.splice(0, seen.length, ...pidsIn(output))
    }
    expect(seen).toHaveLength(2)
    controller.abort()
    const result = await done
    expect(result.status === "error" && result.kind).toBe("interrupted")
    for (const pid of seen) expect(gone(pid)).toBe(true)
  })

  it("ends when the command ends even if a background child holds the pipe, and kills it", async () => {
    // Both children outlast the test timeout: the call ending at all shows it did not wait for them.
    const result = completed(
      await bash({ command: "sleep 600 & echo pid:$!; (setsid sleep 601 & echo pid:$!); echo done" }),
    )
    const pids = pidsIn(result.output)
    expect(pids).toHaveLength(2)
    for (const pid of pids) expect(gone(pid)).toBe(true)
    expect(result.output).toContain("Killed 2 process(es) the command left running in the background")
    expect(result.output).toContain("run_in_background")
    expect(result.metadata.exit).toBe(0)
  })
})

describe("waiting for input", () => {
  it("stops a command that sits silent after a prompt, and says how to avoid it", async () => {
    // The sleep outlasts the test timeout: only the prompt detector can end this call.
    const result = completed(
      await bash(
        { command: "printf 'Overwrite config? [y/N] '; sleep 600" },
        { extra: { shell: { prompt_idle: 300 } } },
      ),
    )
    expect(result.metadata.waitingForInput).toBe(true)
    expect(result.output).toContain("appears to be waiting for input")
    expect(result.output).toContain('"Overwrite config? [y/N]"')
    expect(result.output).toContain("yes | cmd")
  })

  it("detects a read prompt shown by a program that waits", async () => {
    const result = completed(
      await bash(
        {
          command: `python3 -c "import sys,time; sys.stdout.write('Password: '); sys.stdout.flush(); time.sleep(30)"`,
        },
        { extra: { shell: { prompt_idle: 300 } } },
      ),
    )
    expect(result.metadata.waitingForInput).toBe(true)
    expect(result.output).toContain('"Password:"')
  })

  it("lets a quiet command that is not at a prompt finish", async () => {
    const result = completed(
      await bash(
        { command: "printf 'Building...'; sleep 0.8; echo done" },
        { extra: { shell: { prompt_idle: 200 } } },
      ),
    )
    expect(result.output).toBe("Building...done")
    expect(result.metadata.waitingForInput).toBeUndefined()
  })
})

describe("large output", () => {
  it("keeps the last 2000 lines of 2,500 and saves the full output", async () => {
    const result = completed(await bash({ command: "seq 1 2500" }))
    expect(result.metadata.truncated).toBe(true)
    const path = String(result.metadata.outputPath)
    expect(result.output).toMatch(/^\.\.\.output truncated\.\.\.\n\nFull output saved to: /)
    expect(result.output).toContain(`Full output saved to: ${path}\n`)
    expect(result.output).toContain("the last 2000 of 2500 lines")
    expect(result.output).toContain("read lines 1-500 ")
    expect(result.output.endsWith("\n501\n502")).toBe(false)
    expect(result.output.split("\n\n").at(-1)!.split("\n")).toEqual(
      Array.from({ length: 2000 }, (_, i) => String(i + 501)),
    )
    expect(path.startsWith(storeDir)).toBe(true)
    expect(await readFile(path, "utf8")).toBe(Array.from({ length: 2500 }, (_, i) => `${i + 1}\n`).join(""))
  })

  it("keeps the last 50 KB of 60 KB and saves all of it", async () => {
    const result = completed(await bash({ command: "head -c 61440 /dev/zero | tr '\\0' 'x'" }))
    const path = String(result.metadata.outputPath)
    const preview = result.output.split("\n\n").at(-1)!
    expect(preview).toBe("x".repeat(51200))
    expect(await readFile(path, "utf8")).toBe("x".repeat(61440))
  })

  it("keeps error and summary lines from the part that was cut", async () => {
    const result = completed(
      await bash({
        command:
          "echo 'error: first thing broke'; seq 1 3000; echo 'FAIL src/a.test.ts'; seq 1 3000; echo '3 passed, 1 failed'",
      }),
    )
    expect(result.output).toContain("Lines from the truncated part that look like errors or summaries:")
    expect(result.output).toContain("  line 1: error: first thing broke")
    expect(result.output).toContain("  line 3002: FAIL src/a.test.ts")
    expect(result.output.endsWith("3 passed, 1 failed")).toBe(true)
  })

  it("keeps its own memory bounded for a 200 MB output and saves every byte", async () => {
    const before = process.memoryUsage.rss()
    let peak = before
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss())
    }, 10)
    const result = completed(
      await bash({ command: "head -c 200000000 /dev/zero | tr '\\0' 'a' | fold -w 100", timeout: 60_000 }),
    )
    clearInterval(timer)
    // fold ends every line but the last with a newline.
    expect((await stat(String(result.metadata.outputPath))).size).toBe(201_999_999)
    expect(result.output).toContain("the last 506 of 2000000 lines")
    // Holding the output would take 200+ MB; the capture holds ~100 KB and the spool a few MB.
    expect(peak - before).toBeLessThan(80 * 1024 * 1024)
  }, 60_000)
})

const HAS_BWRAP = sandboxAvailability().available

describe.skipIf(!HAS_BWRAP)("sandbox", () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    server = createServer((socket) => socket.end("hello from the host\n"))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("lets a command write in the project and the temp dir, and nowhere else", async () => {
    const outside = join(process.env.HOME ?? "/root", `.toolbelt-sandbox-test-${process.pid}`)
    const result = completed(
      await bash(
        {
          command: `touch inside && echo ok-inside; touch ${outside} || echo blocked-outside; touch /usr/toolbelt-test || echo blocked-usr; t=$(mktemp) && echo ok-tmp && rm "$t"`,
        },
        { extra: { sandbox: true } },
      ),
    )
    expect(result.output).toContain("ok-inside")
    expect(result.output).toContain("blocked-outside")
    expect(result.output).toContain("blocked-usr")
    expect(result.output).toContain("ok-tmp")
    expect(existsSync(join(project, "inside"))).toBe(true)
    expect(existsSync(outside)).toBe(false)
    expect(result.metadata.sandboxed).toBe(true)
  })

  it("has no network unless allowed", async () => {
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo no-network`
    const blocked = completed(await bash({ command }, { extra: { sandbox: true } }))
    expect(blocked.output).toContain("no-network")
    const allowed = completed(await bash({ command }, { extra: { sandbox: { network: true } } }))
    expect(allowed.output).toBe("hello from the host")
  })

  it("protects git hooks and config, and the data dir", async () => {
    await mkdir(join(project, ".git", "hooks"), { recursive: true })
    await writeFile(join(project, ".git", "config"), "[core]\n")
    await mkdir(join(project, ".data"), { recursive: true })
    const result = completed(
      await bash(
        {
          command:
            "echo x > .git/hooks/pre-commit || echo hooks-blocked; echo '[core] hooksPath=/tmp' >> .git/config || echo config-blocked; echo x > .data/f || echo data-blocked; echo y > .git/HEAD && echo head-ok",
        },
        { extra: { sandbox: true, dataDir: join(project, ".data") } },
      ),
    )
    expect(result.output).toContain("hooks-blocked")
    expect(result.output).toContain("config-blocked")
    expect(result.output).toContain("data-blocked")
    expect(result.output).toContain("head-ok")
    expect(existsSync(join(project, ".git", "hooks", "pre-commit"))).toBe(false)
  })

  it("refuses to run when the sandbox is enabled but bubblewrap is missing", async () => {
    const bin = join(root, "bin")
    await mkdir(bin)
    await symlink("/bin/bash", join(bin, "bash"))
    const path = process.env.PATH
    process.env.PATH = bin
    try {
      sandboxAvailability({ refresh: true })
      const result = await bash({ command: "touch ran" }, { extra: { sandbox: true } })
      expect(result.status === "error" && result.error).toContain("The shell sandbox is enabled")
      expect(result.status === "error" && result.error).toContain("bubblewrap (`bwrap`) is not installed")
      expect(existsSync(join(project, "ran"))).toBe(false)
    } finally {
      process.env.PATH = path
      sandboxAvailability({ refresh: true })
    }
  })
})

describe("permission", () => {
  let asks: AskRequest[]
  let answer: (request: AskRequest) => void

  class Recorder implements PermissionService {
    async ask(request: AskRequest): Promise<void> {
      asks.push(request)
      answer(request)
    }
    evaluate() {
      return "allow" as const
    }
  }

  beforeEach(() => {
    asks = []
    answer = () => {}
    deps = { ...deps, permission: new Recorder() }
  })

  it("asks bash once with every command's pattern and its always prefix", async () => {
    completed(await bash({ command: "echo one && git --version | head -1; ls" }))
    const ask = asks.find((request) => request.permission === "bash")!
    expect(ask.patterns).toEqual(["echo one", "git --version", "head -1", "ls"])
    expect(ask.always).toEqual(expect.arrayContaining(["echo *", "head *", "ls *"]))
    expect(asks.filter((request) => request.permission === "bash")).toHaveLength(1)
    expect(ask.metadata.command).toBe("echo one && git --version | head -1; ls")
  })

  it("asks external_directory for directories outside the project, before bash", async () => {
    completed(await bash({ command: `cat ${root}/data/x 2>/dev/null; true` }))
    expect(asks.map((request) => request.permission)).toEqual(["external_directory", "bash"])
    expect(asks[0]!.patterns).toEqual([`${root}/data/*`])
  })

  it("asks external_directory for a workdir outside the project", async () => {
    completed(await bash({ command: "pwd", workdir: root }))
    expect(asks[0]).toMatchObject({ permission: "external_directory", patterns: [`${root}/*`] })
    expect(asks.filter((request) => request.permission === "external_directory")).toHaveLength(1)
  })

  it("asks for the whole command when it cannot be parsed", async () => {
    const command = 'echo "unterminated'
    await bash({ command })
    const ask = asks.find((request) => request.permission === "bash")!
    expect(ask.patterns[0]).toBe(command)
    expect(ask.always[0]).toBe(command)
  })

  it("does not run a command whose permission is denied", async () => {
    answer = (request) => {
      if (request.permission === "bash" && request.patterns.some((pattern) => pattern.startsWith("touch"))) {
        throw new Error("denied")
      }
    }
    const result = await bash({ command: "echo hi; touch created" })
    expect(result.status).toBe("error")
    expect(existsSync(join(project, "created"))).toBe(false)
  })

  it("asks nothing for a bare cd", async () => {
    await mkdir(join(project, "src"))
    completed(await bash({ command: "cd src" }))
    expect(asks.filter((request) => request.permission === "bash")).toHaveLength(0)
  })
})
