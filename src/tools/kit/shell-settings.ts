import { tmpdir } from "node:os"
import { defaultDataDir, outputDir } from "../../platform/fs/data-dir.ts"
import type { Pager } from "../../platform/text/hint.ts"
import { DEFAULT_LIMITS, type Limits } from "../../platform/text/limits.ts"
import * as Tool from "../../runtime/tool/index.ts"

export const DEFAULT_TIMEOUT_MS = 2 * 60 * 1000
export const MAX_TIMEOUT_MS = 10 * 60 * 1000
/** Silence after a prompt-like last line before the command is taken to be waiting for input. */
export const DEFAULT_PROMPT_IDLE_MS = 3000
export const DEFAULT_READY_TIMEOUT_MS = 30_000

export interface SandboxSettings {
  readonly network: boolean
  readonly writable: readonly string[]
}

/** What the shell tools take from the call's `ctx.extra` (the runner fills it from the config). */
export interface ShellSettings {
  readonly directory: string
  readonly worktree: string | undefined
  /** The configured shell, if any. */
  readonly shell: string | undefined
  readonly defaultTimeoutMs: number
  readonly maxTimeoutMs: number
  /** 0: never stop a command for looking like it waits for input. */
  readonly promptIdleMs: number
  /** Undefined: commands run unsandboxed. */
  readonly sandbox: SandboxSettings | undefined
  readonly limits: Limits
  readonly dataDir: string
  readonly storeDir: string
  readonly tmp: string
  readonly shellEnv: ShellEnvHook | undefined
  /** The tool the agent reads files page by page with (from the runtime): a cut output's hint names calls to it. */
  readonly pager: () => Pager | undefined
}

/** The part of the hooks registry the shell uses (`Hooks#shellEnv`). */
export interface ShellEnvHook {
  shellEnv(
    input: { cwd: string; sessionID?: string; callID?: string },
    env?: Readonly<Record<string, string>>,
  ): Promise<Record<string, string>>
}

/**
 * Reads the settings from `ctx.extra`:
 * - `directory` (required), `worktree`;
 * - `shell`: the shell to use (a name or path), or the config section `{path?, timeout?, max_timeout?,
 *   prompt_idle?, sandbox?}` (times in ms; `prompt_idle: 0` turns prompt detection off);
 * - `sandbox`: `true`, `false` or `{network?, writable?}`; overrides `shell.sandbox`;
 * - `limits` `{maxLines, maxBytes}`; `outputDir` or `store.dir` or `dataDir` for the output store;
 * - `hooks`: anything with `shellEnv` (the plugin hooks registry);
 * - `pager`: a function giving the tool that reads files page by page (the hint after a cut output).
 * A bad value is a ToolFailure that names the setting and says what it must be.
 */
export function readSettings(extra: Readonly<Record<string, unknown>>): ShellSettings {
  const directory = extra.directory
  if (typeof directory !== "string" || directory === "") {
    throw new Error("The shell tools need ctx.extra.directory (the project directory).")
  }
  const section = isRecord(extra.shell) ? extra.shell : {}
  const shell = typeof extra.shell === "string" ? extra.shell : optionalString(section.path, "shell.path")
  const maxTimeoutMs = positive(section.max_timeout, "shell.max_timeout", MAX_TIMEOUT_MS)
  const defaultTimeoutMs = positive(
    section.timeout,
    "shell.timeout",
    Math.min(DEFAULT_TIMEOUT_MS, maxTimeoutMs),
  )
  if (defaultTimeoutMs > maxTimeoutMs) {
    throw new Tool.ToolFailure(
      `Invalid shell setting: shell.timeout (${defaultTimeoutMs} ms) is more than shell.max_timeout (${maxTimeoutMs} ms). Lower the one or raise the other.`,
    )
  }
  const promptIdleMs = nonNegative(section.prompt_idle, "shell.prompt_idle", DEFAULT_PROMPT_IDLE_MS)
  const sandbox = readSandbox(extra.sandbox !== undefined ? extra.sandbox : section.sandbox)
  const limits = readLimits(extra.limits)
  const dataDir = typeof extra.dataDir === "string" && extra.dataDir ? extra.dataDir : defaultDataDir()
  const store = isRecord(extra.store) && typeof extra.store.dir === "string" ? extra.store.dir : undefined
  const storeDir =
    typeof extra.outputDir === "string" && extra.outputDir ? extra.outputDir : (store ?? outputDir(dataDir))
  const hooks = extra.hooks
  const shellEnv =
    isRecord(hooks) && typeof hooks.shellEnv === "function" ? (hooks as unknown as ShellEnvHook) : undefined
  return {
    directory,
    worktree: typeof extra.worktree === "string" && extra.worktree ? extra.worktree : undefined,
    shell,
    defaultTimeoutMs,
    maxTimeoutMs,
    promptIdleMs,
    sandbox,
    limits,
    dataDir,
    storeDir,
    tmp: tmpdir(),
    shellEnv,
    pager: typeof extra.pager === "function" ? (extra.pager as () => Pager | undefined) : () => undefined,
  }
}

function readSandbox(value: unknown): SandboxSettings | undefined {
  if (value === undefined || value === false || value === null) return undefined
  if (value === true) return { network: false, writable: [] }
  if (!isRecord(value)) {
    throw new Tool.ToolFailure(
      `Invalid shell setting: sandbox is ${describe(value)}, but it must be true, false or {"network": boolean, "writable": [paths]}.`,
    )
  }
  if (value.enabled === false) return undefined
  const network = value.network ?? false
  if (typeof network !== "boolean") {
    throw new Tool.ToolFailure(
      `Invalid shell setting: sandbox.network is ${describe(network)}, but it must be true or false.`,
    )
  }
  const writable = value.writable ?? []
  if (!Array.isArray(writable) || writable.some((path) => typeof path !== "string")) {
    throw new Tool.ToolFailure(
      `Invalid shell setting: sandbox.writable is ${describe(writable)}, but it must be a list of directory paths.`,
    )
  }
  return { network, writable: writable as string[] }
}

function readLimits(value: unknown): Limits {
  if (value === undefined) return DEFAULT_LIMITS
  if (!isRecord(value)) {
    throw new Tool.ToolFailure(
      `Invalid shell setting: limits is ${describe(value)}, but it must be an object with maxLines and maxBytes.`,
    )
  }
  return {
    maxLines: positive(value.maxLines, "limits.maxLines", DEFAULT_LIMITS.maxLines),
    maxBytes: positive(value.maxBytes, "limits.maxBytes", DEFAULT_LIMITS.maxBytes),
  }
}

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value
  throw new Tool.ToolFailure(
    `Invalid shell setting: ${name} is ${describe(value)}, but it must be a positive whole number of milliseconds. ` +
      `Fix it, or remove it to use the default (${fallback}).`,
  )
}

function nonNegative(value: unknown, name: string, fallback: number): number {
  if (value === 0) return 0
  return positive(value, name, fallback)
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value === "string") return value
  throw new Tool.ToolFailure(`Invalid shell setting: ${name} is ${describe(value)}, but it must be a string.`)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (value === null) return "null"
  return Array.isArray(value) ? "a list" : typeof value
}
