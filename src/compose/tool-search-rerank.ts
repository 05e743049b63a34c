// tool_search's optional rerank: the session's model orders the ranker's top candidates.

import type { LanguageModel } from "ai"
import { logger } from "../platform/util/log.ts"
import type { TurnModel } from "../runtime/tool/subagent-services.ts"
import { parseRerank, rerankPrompt } from "../runtime/tool-search/rank/rerank.ts"
import type { SearchDoc } from "../runtime/tool-search/rank/types.ts"

const log = logger("tool-search")

/** Answers past this are cut: a list of at most 20 names needs far less. */
const MAX_OUTPUT_TOKENS = 400

/**
 * Asks the session's model (an AI SDK model: the turn's own, or MCP sampling through the client) to
 * order `candidates` for `query`; undefined when it fails (the ranker's order then stands, and the
 * model that called tool_search hears nothing of it). `ai` is imported on first use only.
 */
export async function rerank({
  model,
  query,
  candidates,
  signal,
}: {
  model: TurnModel
  query: string
  candidates: readonly SearchDoc[]
  signal?: AbortSignal | undefined
}): Promise<string[] | undefined> {
  try {
    const { generateText } = await import("ai")
    const { text } = await generateText({
      model: model.model as LanguageModel,
      prompt: rerankPrompt(query, candidates),
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      ...(signal ? { abortSignal: signal } : {}),
    })
    return parseRerank(
      text,
      candidates.map((doc) => doc.name),
    )
  } catch (error) {
    log.debug("rerank failed; the ranker's order stands", { error: String(error) })
    return undefined
  }
}
