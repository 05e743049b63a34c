import { tmpdir } from "node:os"
import { describe, expect, it } from "vitest"
import type { RunResult } from "../../platform/shell/run/index.ts"
import { readSettings } from "../kit/shell-settings.ts"
import { ABORTED, describeEnd, withNotes } from "./shell-metadata.ts"

const settings = readSettings({ directory: tmpdir(), shell: { max_timeout: 9000, prompt_idle: 0 } })
const sleep = { pid: 42, command: "sleep 600" }

/** A run's end; describeEnd reads only how it ended and what was killed, never the output. */
function ended(end: Partial<RunResult>): RunResult {
  return {
    pid: 1,
    exitCode: 0,
    signal: null,
    reason: "exit",
    leftovers: [],
    killed: [],
    survivors: [],
    durationMs: 1,
    ...end,
  } as RunResult
}

describe("describeEnd", () => {
  it.each([
    { name: "a clean exit", end: {}, notes: [] },
    { name: "a failing exit", end: { exitCode: 3 }, notes: ["Exit code: 3"] },
    {
      name: "a signal",
      end: { exitCode: null, signal: "SIGSEGV" as const },
      notes: ["The command was terminated by signal SIGSEGV."],
    },
    { name: "an abort", end: { reason: "abort" as const, exitCode: null }, notes: [ABORTED] },
    {
      name: "a kill",
      end: { reason: "killed" as const, exitCode: null, killed: [sleep] },
      notes: ["The command was killed.", "Killed: 42 sleep 600."],
    },
    {
      name: "leftovers",
      end: { leftovers: [sleep], killed: [sleep] },
      notes: [
        "Killed 1 process(es) the command left running in the background (42 sleep 600): a call ends when its command does. Start servers and watchers with run_in_background: true.",
      ],
    },
    {
      name: "survivors",
      end: { exitCode: 1, survivors: [sleep] },
      notes: ["Exit code: 1", "These processes could not be killed and may still be running: 42 sleep 600."],
    },
  ])("tells $name", ({ end, notes }) => {
    expect(describeEnd(ended(end), 5000, settings)).toEqual(notes)
  })

  it("tells a timeout with the limit it passed and the most it may be", () => {
    const [note] = describeEnd(ended({ reason: "timeout", exitCode: null }), 5000, settings)
    expect(note).toContain("exceeding timeout 5000 ms")
    expect(note).toContain("(at most 9000)")
  })
})

describe("withNotes", () => {
  it("adds the notes in a <shell_metadata> block, and nothing when there are none", () => {
    expect(withNotes("out", [])).toBe("out")
    expect(withNotes("out", ["a", "b"])).toBe("out\n\n<shell_metadata>\na\nb\n</shell_metadata>")
  })
})
