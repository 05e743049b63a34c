import { createAnthropic } from "@ai-sdk/anthropic"
import { createOpenAI } from "@ai-sdk/openai"
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import type { ModelObject } from "./tools.ts"

/** The providers `--model provider/id` accepts. */
export const PROVIDERS = ["openai", "anthropic", "openai-compatible"] as const

/**
 * The providers and how to reach each, local models included, for a message about a model that is
 * missing or unknown: a person without an API key learns that a local server works too.
 */
export const MODEL_CHOICES =
  "The providers: openai/<id> (needs OPENAI_API_KEY), anthropic/<id> (needs ANTHROPIC_API_KEY), and " +
  "openai-compatible/<id> for a local or self-hosted server (Ollama, llama.cpp, vLLM, LM Studio), e.g. " +
  "--model openai-compatible/<id> --base-url http://localhost:11434/v1 (or set TOOLBELT_BASE_URL " +
  "instead of passing --base-url)."

export interface ResolvedModel {
  readonly model: ModelObject
  readonly providerID: string
  readonly modelID: string
}

/** A model spec that cannot be used as given (a usage error, not a model failure). */
export class ModelSpecError extends Error {
  override readonly name = "ModelSpecError"
}

/**
 * The AI SDK model for `provider/id`, keys and endpoints from the environment.
 * - `openai/<id>`: `OPENAI_API_KEY` (and `OPENAI_BASE_URL`, or `baseURL`).
 * - `anthropic/<id>`: `ANTHROPIC_API_KEY` (and `ANTHROPIC_BASE_URL`, or `baseURL`).
 * - `openai-compatible/<id>`: chat completions at `baseURL` or `TOOLBELT_BASE_URL` (llama.cpp, Ollama,
 *   vLLM, LM Studio); `TOOLBELT_API_KEY` when the server wants one.
 */
export function resolveModel(options: {
  readonly spec: string
  readonly baseURL?: string
  readonly env?: NodeJS.ProcessEnv
}): ResolvedModel {
  const env = options.env ?? process.env
  const slash = options.spec.indexOf("/")
  if (slash <= 0 || slash === options.spec.length - 1) {
    throw new ModelSpecError(
      `--model must be provider/model-id (e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5, openai-compatible/qwen3), got "${options.spec}". ${MODEL_CHOICES}`,
    )
  }
  const providerID = options.spec.slice(0, slash)
  const modelID = options.spec.slice(slash + 1)
  switch (providerID) {
    case "openai": {
      const apiKey = requireKey(env, "OPENAI_API_KEY", providerID)
      const baseURL = options.baseURL ?? env.OPENAI_BASE_URL
      return {
        model: createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}) })(modelID),
        providerID,
        modelID,
      }
    }
    case "anthropic": {
      const apiKey = requireKey(env, "ANTHROPIC_API_KEY", providerID)
      const baseURL = options.baseURL ?? env.ANTHROPIC_BASE_URL
      return {
        model: createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}) })(modelID),
        providerID,
        modelID,
      }
    }
    case "openai-compatible": {
      const baseURL = options.baseURL ?? env.TOOLBELT_BASE_URL
      if (!baseURL) {
        throw new ModelSpecError(
          "openai-compatible needs the server's URL: pass --base-url (e.g. http://127.0.0.1:8080/v1) or set TOOLBELT_BASE_URL.",
        )
      }
      const provider = createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        includeUsage: true,
        ...(env.TOOLBELT_API_KEY ? { apiKey: env.TOOLBELT_API_KEY } : {}),
      })
      return { model: provider.chatModel(modelID), providerID, modelID }
    }
    default:
      throw new ModelSpecError(`Unknown provider "${providerID}". ${MODEL_CHOICES}`)
  }
}

function requireKey(env: NodeJS.ProcessEnv, name: string, provider: string): string {
  const key = env[name]
  if (!key) {
    throw new ModelSpecError(
      `${name} is not set: the ${provider} provider needs an API key. A local model needs none: --model openai-compatible/<id> --base-url http://localhost:11434/v1 (or set TOOLBELT_BASE_URL).`,
    )
  }
  return key
}
