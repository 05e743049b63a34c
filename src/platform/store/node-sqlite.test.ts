import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { NODE_FLOOR, unsupportedNodeMessage, withoutExperimentalWarning } from "./node-sqlite.ts"

const ROOT = resolve(import.meta.dirname, "..", "..", "..")

describe("withoutExperimentalWarning", () => {
  const emitWarning = process.emitWarning
  afterEach(() => {
    process.emitWarning = emitWarning
  })

  /** Stands in for Node's emitWarning, the one the filter passes warnings on to: what reached it. */
  function recordWarnings(): string[] {
    const seen: string[] = []
    process.emitWarning = ((warning: string | Error, options?: string | { type?: string }) => {
      const type =
        warning instanceof Error ? warning.name : typeof options === "string" ? options : options?.type
      seen.push(`${type ?? "Warning"}: ${warning instanceof Error ? warning.message : warning}`)
    }) as typeof process.emitWarning
    return seen
  }

  it("drops only the named feature's ExperimentalWarning; every other warning still goes out", () => {
    const seen = recordWarnings()
    const recorder = process.emitWarning
    const value = withoutExperimentalWarning("SQLite", () => {
      process.emitWarning(
        "SQLite is an experimental feature and might change at any time",
        "ExperimentalWarning",
      )
      process.emitWarning("SQLite again", { type: "ExperimentalWarning" })
      process.emitWarning("WebSockets are experimental", "ExperimentalWarning")
      process.emitWarning("SQLite is mentioned in a deprecation", "DeprecationWarning")
      process.emitWarning(Object.assign(new Error("SQLite as an Error"), { name: "ExperimentalWarning" }))
      return 42
    })
    expect(value).toBe(42)
    expect(process.emitWarning).toBe(recorder)
    process.emitWarning("SQLite after the load", "ExperimentalWarning")
    expect(seen).toEqual([
      "ExperimentalWarning: WebSockets are experimental",
      "DeprecationWarning: SQLite is mentioned in a deprecation",
      "ExperimentalWarning: SQLite after the load",
    ])
  })

  it("puts process.emitWarning back when the load throws", () => {
    expect(() =>
      withoutExperimentalWarning("SQLite", () => {
        throw new Error("no such module")
      }),
    ).toThrow("no such module")
    expect(process.emitWarning).toBe(emitWarning)
  })
})

describe("unsupportedNodeMessage", () => {
  it.each(["v20.20.2", "v22.12.0", "v23.3.0"])(
    "%s: one line naming the floor and the Node running",
    (version) => {
      const message = unsupportedNodeMessage(version)
      expect(message).not.toContain("\n")
      expect(message).toContain(`needs Node ${NODE_FLOOR} or newer`)
      expect(message).toContain(`this is Node ${version}`)
    },
  )

  it.each(["v22.13.0", "v23.4.0", "v24.21.0"])(
    "%s has node:sqlite: the line names the flag that turned it off",
    (version) => {
      const message = unsupportedNodeMessage(version)
      expect(message).not.toContain("\n")
      expect(message).toContain("--no-experimental-sqlite")
      expect(message).not.toContain("or newer")
    },
  )
})

it("package.json's engines, the launcher and the README name the same floor", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }
  expect(pkg.engines.node).toBe(`>=${NODE_FLOOR}`)
  expect(readFileSync(join(ROOT, "bin", "toolbelt.js"), "utf8")).toContain(
    `toolbelt needs Node ${NODE_FLOOR} or newer`,
  )
  expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain(
    `toolbelt runs on Node ${NODE_FLOOR} or newer`,
  )
})
