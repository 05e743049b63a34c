/** The metadata of a `bash` result, for UIs (the model reads the output text). */
export interface BashMetadata extends Record<string, unknown> {
  /** The tail of the output (the live preview while it runs). */
  output: string
  /** The exit code; null when the command was killed or has not ended (background). */
  exit: number | null
  truncated: boolean
  outputPath?: string
  description: string
  timedOut?: boolean
  /** The signal that ended the shell (killed from outside, or by the tree kill on timeout/abort). */
  signal?: string
  aborted?: boolean
  waitingForInput?: boolean
  /** Pids killed at the end (leftover background processes, or the tree on timeout/abort). */
  killed?: number[]
  sandboxed?: boolean
  jobID?: string
  pid?: number
}
