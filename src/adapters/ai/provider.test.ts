import { describe, expect, it } from "vitest"
import { ModelSpecError, resolveModel } from "./provider.ts"

describe("resolveModel", () => {
  it.each([
    ["openai/gpt-5", { OPENAI_API_KEY: "k" }, "openai", "gpt-5"],
    ["anthropic/claude-sonnet-4-5", { ANTHROPIC_API_KEY: "k" }, "anthropic", "claude-sonnet-4-5"],
    [
      "openai-compatible/qwen3:8b",
      { TOOLBELT_BASE_URL: "http://127.0.0.1:11434/v1" },
      "openai-compatible",
      "qwen3:8b",
    ],
    [
      "openai-compatible/org/model-name",
      { TOOLBELT_BASE_URL: "http://x/v1" },
      "openai-compatible",
      "org/model-name",
    ],
  ])("%s", (spec, env, providerID, modelID) => {
    const resolved = resolveModel({ spec, env })
    expect(resolved).toMatchObject({ providerID, modelID })
    expect((resolved.model as { modelId: string }).modelId).toBe(modelID)
  })

  it.each([
    ["gpt-5", {}, "provider/model-id"],
    ["openai/", {}, "provider/model-id"],
    ["mystery/x", {}, 'Unknown provider "mystery"'],
    ["openai/gpt-5", {}, "OPENAI_API_KEY"],
    ["anthropic/claude", {}, "ANTHROPIC_API_KEY"],
    ["openai-compatible/m", {}, "--base-url"],
  ])("%s is refused as a usage error", (spec, env, message) => {
    expect(() => resolveModel({ spec, env })).toThrow(ModelSpecError)
    expect(() => resolveModel({ spec, env })).toThrow(message)
  })
})
