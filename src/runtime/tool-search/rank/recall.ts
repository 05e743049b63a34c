// How well an index finds the tools tasks need, the measure the quality test and the benchmark share.
// Step recall@k: each step's query searched once with limit k; the share of the steps' needed tools
// found. Task recall@k: each task's whole text searched once; the share of all its steps' tools found.
// Both are counted over tools, not averaged over queries, so a step needing two tools counts twice.
import { nameTerms, terms } from "./terms.ts"
import type { ToolIndex } from "./types.ts"

export interface RecallTask {
  readonly split: string
  readonly task: string
  readonly steps: readonly { readonly query: string; readonly tools: readonly string[] }[]
}

export interface Recall {
  readonly found: number
  readonly needed: number
  /** found / needed (0 when nothing is needed). */
  readonly recall: number
}

export function stepRecall(index: ToolIndex, tasks: readonly RecallTask[], limit: number): Recall {
  let found = 0
  let needed = 0
  for (const task of tasks)
    for (const step of task.steps) {
      const hits = new Set(index.search(step.query, limit).map((hit) => hit.name))
      needed += step.tools.length
      for (const tool of step.tools) if (hits.has(tool)) found++
    }
  return { found, needed, recall: needed === 0 ? 0 : found / needed }
}

export function taskRecall(index: ToolIndex, tasks: readonly RecallTask[], limit: number): Recall {
  let found = 0
  let needed = 0
  for (const task of tasks) {
    const hits = new Set(index.search(task.task, limit).map((hit) => hit.name))
    const tools = new Set(task.steps.flatMap((step) => step.tools))
    needed += tools.size
    for (const tool of tools) if (hits.has(tool)) found++
  }
  return { found, needed, recall: needed === 0 ? 0 : found / needed }
}

/**
 * A harder reading of the same steps, for vocabulary mismatch: each one-tool step's query with the
 * words of the needed tool's name taken out ("list open issues" for github_list_issues → "open"),
 * so only descriptions, parameters, synonyms and servers can find it. Steps left empty are dropped.
 */
export function withoutNameWords(tasks: readonly RecallTask[]): RecallTask[] {
  return tasks.map((task) => ({
    ...task,
    steps: task.steps.flatMap((step) => {
      if (step.tools.length !== 1) return []
      const name = new Set(nameTerms(step.tools[0]!))
      const query = step.query
        .split(/\s+/)
        .filter((word) => !nameTerms(word).some((term) => name.has(term)))
        .join(" ")
      return terms(query).length > 0 ? [{ query, tools: step.tools }] : []
    }),
  }))
}
