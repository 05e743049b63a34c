import { PassThrough, Writable } from "node:stream"
import { describe, expect, it } from "vitest"
import { parseCommandLine } from "./command-line.ts"
import type { IO } from "./io.ts"
import { main } from "./main.ts"

function capture(): { io: IO; stdout: () => string; stderr: () => string } {
  const sink = () => {
    let text = ""
    const stream = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk)
        done()
      },
    })
    return { stream, text: () => text }
  }
  const out = sink()
  const err = sink()
  const stdin = new PassThrough()
  stdin.end()
  return {
    io: { stdout: out.stream, stderr: err.stream, stdin, env: {}, cwd: process.cwd() },
    stdout: out.text,
    stderr: err.text,
  }
}

describe("parseCommandLine", () => {
  it("takes the shared flags a command names and its own, with -h for help", () => {
    const { io, stdout } = capture()
    const line = parseCommandLine({
      argv: ["--cwd", "dir", "-y", "--json", "--steps", "3", "tool"],
      io,
      help: "HELP",
      shared: ["cwd", "yes", "json"],
      flags: { steps: { type: "string" } },
      positionals: true,
    })
    expect(line).toEqual({ values: { cwd: "dir", yes: true, json: true, steps: "3" }, positionals: ["tool"] })
    expect(stdout()).toBe("")
  })

  it("prints the help and returns nothing on -h or --help", () => {
    for (const flag of ["-h", "--help"]) {
      const { io, stdout } = capture()
      const line = parseCommandLine({ argv: [flag], io, help: "HELP\n", shared: ["cwd"], positionals: false })
      expect(line).toBeUndefined()
      expect(stdout()).toBe("HELP\n")
    }
  })

  it("refuses a shared flag the command did not name, and positionals when it takes none", () => {
    const { io } = capture()
    const parse = (argv: string[]) =>
      parseCommandLine({ argv, io, help: "HELP", shared: ["cwd"], positionals: false })
    expect(() => parse(["--json"])).toThrow(
      expect.objectContaining({ code: "ERR_PARSE_ARGS_UNKNOWN_OPTION" }),
    )
    expect(() => parse(["extra"])).toThrow(
      expect.objectContaining({ code: "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" }),
    )
  })
})

describe("usage errors, reported in one place", () => {
  // Every command: an unknown flag is exit 2, `toolbelt <command>: <message>` on stderr, then its help.
  it.each(["tools", "call", "mcp", "permissions", "run"])(
    "%s --bogus: exit 2 and the command's help",
    async (command) => {
      const { io, stdout, stderr } = capture()
      expect(await main([command, "--bogus"], io)).toBe(2)
      expect(stderr()).toMatch(new RegExp(`^toolbelt ${command}: Unknown option '--bogus'`))
      expect(stderr()).toContain(`Usage: toolbelt ${command}`)
      expect(stdout()).toBe("")
    },
  )

  it("a command with --json answers a usage error with one JSON object", async () => {
    for (const argv of [
      ["tools", "--bogus", "--json"],
      ["permissions", "frobnicate", "--json"],
      ["call", "--json"],
    ]) {
      const { io, stdout } = capture()
      expect(await main(argv, io)).toBe(2)
      const lines = stdout().split("\n").filter(Boolean)
      expect(lines).toHaveLength(1)
      expect(JSON.parse(lines[0]!)).toEqual({ status: "error", error: expect.any(String) })
    }
  })

  it("an error whose message says what to pass is not followed by the help", async () => {
    const cases: [string[], string][] = [
      [
        ["call"],
        "toolbelt call: Missing the tool name. Usage: toolbelt call <tool> [ARGS_JSON|-]; toolbelt tools lists the tools.\n",
      ],
      [["call", "read", "{nope"], "toolbelt call: ARGS_JSON is not valid JSON"],
      [["call", "read", "{}", "more"], "toolbelt call: Unexpected arguments: more."],
      [
        ["run", "--", "--json"],
        "toolbelt run: no model: pass --model provider/id (or set TOOLBELT_MODEL). The providers: ",
      ],
      [
        ["run", "hi", "--steps", "0", "--model", "x/y"],
        'toolbelt run: --steps must be a positive integer, got "0".\n',
      ],
    ]
    for (const [argv, says] of cases) {
      const { io, stdout, stderr } = capture()
      expect(await main(argv, io)).toBe(2)
      expect(stderr().startsWith(says)).toBe(true)
      expect(stderr()).not.toContain("Options:")
      // `--json` after `--` is the prompt, not the flag: no JSON object.
      expect(stdout()).toBe("")
    }
  })
})
