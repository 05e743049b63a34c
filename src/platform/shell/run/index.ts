// Running one shell command: its environment, its whole process tree, and its bounded output.
export { Capture, type Captured, type CaptureOptions, PREVIEW_CHARS, previewOf } from "./capture.ts"
export { type Killable, killAllLive, trackLive } from "./cleanup.ts"
export { commandEnv, NON_INTERACTIVE_ENV, RUN_MARKER } from "./env.ts"
export { type Bounded, formatBounded, formatBytes, formatProcesses } from "./format.ts"
export { detectPrompt, promptAdvice } from "./prompt.ts"
export {
  type EndReason,
  RunningCommand,
  type RunOptions,
  type RunResult,
  runCommand,
  SpawnError,
} from "./run.ts"
export { mergeSignals, SignalScanner } from "./scanner.ts"
export { chooseShell, ShellChoiceError, type ShellInfo, SUITABLE_SHELLS } from "./shell.ts"
export { Spool } from "./spool.ts"
export {
  groupExists,
  HAS_PROC,
  type KillOptions,
  type KillReport,
  killTree,
  killTreeNow,
  type ProcessInfo,
  ProcessTree,
} from "./tree.ts"
