import type { Direction } from "./limits.ts"

export interface HintOptions {
  readonly outputPath: string
  readonly direction: Direction
  /** The agent may start a subagent (the task tool is not denied to it). */
  readonly canDelegate: boolean
  readonly firstCutLine: number
  readonly lastCutLine: number
}

/**
 * Tells the model that the call did succeed (so it does not retry) and how to get at the rest. Without a
 * subagent it names the exact read call, with real line numbers, that continues past the preview: a
 * model told only "use offset/limit" tends to read the file from the top.
 */
export function hint(options: HintOptions): string {
  const saved = `The tool call succeeded but the output was truncated. Full output saved to: ${options.outputPath}`
  if (options.canDelegate) {
    return (
      `${saved}\nUse the Task tool to have explore agent process this file with Grep and Read (with offset/limit). ` +
      "Do NOT read the full file yourself - delegate to save context."
    )
  }
  const file = JSON.stringify(options.outputPath)
  const range =
    options.direction === "head"
      ? `offset ${options.firstCutLine}`
      : `offset 1 and limit ${options.lastCutLine}`
  return (
    `${saved}\nUse Grep to search the full content or Read with offset/limit to view specific sections, ` +
    `e.g. read with filePath ${file} and ${range}.`
  )
}
