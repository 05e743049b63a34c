import { expect, it } from "vitest"
import { Registry } from "../runtime/registry/registry.ts"
import { builtins } from "./index.ts"
import { prefersPatch } from "./kit/declarations.ts"

it("offers apply_patch to patch-trained models and edit/write to the others; both without a model", async () => {
  const registry = new Registry()
  registry.register(builtins(), { source: "builtin" })
  const names = async (modelID?: string) =>
    (await registry.tools({ agent: "build", ...(modelID ? { modelID } : {}) }))
      .map((tool) => tool.name)
      .sort()
  // webfetch needs nothing configured; websearch/codesearch (no provider), skill (no skills), batch
  // (off), task (no model) and lsp (no toolbelt) are withheld here.
  const shell = ["bash", "bash_kill", "bash_output", "glob", "grep", "webfetch"]
  // Offered for every model (question where someone can answer: not known here; plan_exit to the
  // plan agent only).
  const session = ["plan_enter", "question", "todoread", "todowrite"]
  expect(await names("gpt-5.1-codex")).toEqual([...shell, ...session, "apply_patch", "list", "read"].sort())
  expect(await names("claude-sonnet-4")).toEqual(
    [...shell, ...session, "edit", "list", "multiedit", "read", "write"].sort(),
  )
  expect(await names()).toEqual(
    [...shell, ...session, "apply_patch", "edit", "list", "multiedit", "read", "write"].sort(),
  )
  expect(prefersPatch("gpt-4o")).toBe(false)
  expect(prefersPatch("gpt-oss-120b")).toBe(false)
})

it("marks writers destructive and readers read-only", async () => {
  const registry = new Registry()
  registry.register(builtins(), { source: "builtin" })
  const tools = new Map(
    (await registry.tools({ agent: "build" })).map((tool) => [tool.name, tool.annotations]),
  )
  for (const name of ["write", "edit", "multiedit", "apply_patch"])
    expect(tools.get(name)?.destructive).toBe(true)
  for (const name of ["read", "list"]) expect(tools.get(name)?.readOnly).toBe(true)
})
