import { MemoryReadLedger, type ReadLedger } from "../../platform/fs/read-ledger.ts"
import type { RecoveryLog } from "../../platform/fs/recovery-log.ts"
import type { Publish } from "../bus/events.ts"
import type { Hooks } from "../hooks/hooks.ts"
import type { Settlement } from "../settle/types.ts"
import type { SkillCatalog } from "../skills/catalog.ts"
import type { Context } from "./context.ts"
import type { LanguageServers } from "./language-servers.ts"
import { memoryTodos, type Questions, type SessionAgent, type TodoList } from "./session-services.ts"
import type { Subagents, TurnModel } from "./subagent-services.ts"

/** A call a tool makes on behalf of its own (batch runs several): a tool and its arguments, as a model sends them. */
export interface ChildCall {
  readonly tool: string
  readonly input: unknown
  /**
   * The part of the usual output bounds (lines and bytes) this call's text may fill, from 0 to 1: a
   * tool that returns the answers of N calls together gives each a share, so that all fit in its own.
   */
  readonly share?: number
}

/** How settlement answered a child call, without its part (the journal holds it, under `callID`). */
export type ChildSettlement = { readonly callID: string } & WithoutPart<Settlement>

type WithoutPart<T> = T extends unknown ? Omit<T, "part"> : never

/**
 * Calls made on behalf of the current one, each settled through the whole pipeline as its own tool part
 * (its own permission asks, journal entry and bounding). Given only to a call that is not itself one.
 */
export interface ChildCalls {
  /** The tools a child call may name: those offered for the current call, without the calling tool; sorted. */
  offered(): Promise<readonly string[]>
  /**
   * Settles `call` in the current call's session, message and agent, under the call id
   * `<current call id>.<n>`, cancelled when the current call is.
   */
  settle(call: ChildCall, n: number): Promise<ChildSettlement>
  /**
   * What the calling tool throws once its calls are done when one of them was `blocked` (a person said
   * no, or no one could be asked): the error settlement treats as its own, so the turn stops as it would
   * had the calling tool asked.
   */
  refusal(child: ChildSettlement & { readonly status: "error" }): Error
}

/** One call of a tool on a remote MCP server (a search provider's endpoint). */
export interface RemoteToolCall {
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
  readonly tool: string
  readonly arguments: Readonly<Record<string, unknown>>
  readonly signal: AbortSignal
  /** For connecting and for the call, each. */
  readonly timeoutMs: number
}

/** What a remote MCP tool answered: its content blocks, and whether it reported an error. */
export interface RemoteToolResult {
  readonly content: readonly { readonly type: string; readonly text?: string }[]
  readonly isError: boolean
}

/** Calls one tool on a remote MCP server over Streamable HTTP, with toolbelt's MCP client. */
export type CallRemoteTool = (call: RemoteToolCall) => Promise<RemoteToolResult>

/**
 * What the built-in tools get from the runtime for one call, carried in `ctx.extra` so tools know
 * nothing of the surface that runs them. Every field but `directory` has a safe default.
 */
export interface ToolServices {
  /** The project directory: relative paths resolve against it; paths outside it ask `external_directory`. */
  readonly directory: string
  /** The repository root (the project directory when there is none); permission patterns are relative to it. */
  readonly worktree: string
  /** Which files each session has read (and their content hashes), for read-before-write. */
  readonly readLedger: ReadLedger
  /** Overwriting/editing an existing file requires a fresh read by the session (config `file.require_read`). */
  readonly requireRead: boolean
  /** Publishes `file.edited` and the other events (a no-op without a bus). */
  readonly publish: Publish
  /** True the first time a session sees `key` (used to attach instruction files once per session). */
  readonly firstTime: (sessionID: string, key: string) => boolean
  /** toolbelt's data directory, when the runtime has one (caches that outlive a process go there). */
  readonly dataDir: string | undefined
  /** Where a change spanning several files records its originals first, so a crash midway is rolled back at the next start. */
  readonly recovery: RecoveryLog | undefined
  /** The Agent Skills the project sees (none without a toolbelt). */
  readonly skills: SkillCatalog | undefined
  /** Calls on behalf of this one (batch); undefined where there is no toolbelt, or for a call that is one. */
  readonly calls: ChildCalls | undefined
  /** The project's config (a tool reads its own section, e.g. `webfetch`); empty without one. */
  readonly config: Readonly<Record<string, unknown>>
  /** The environment the toolbelt was built with (API keys, proxy variables); `process.env` by default. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Calls a tool on a remote MCP server (search providers that speak MCP), when the runtime has a client. */
  readonly callRemoteTool: CallRemoteTool | undefined
  /** Each session's todo list (default: kept in this process's memory). */
  readonly todos: TodoList
  /** The question flow, where the runtime has one (a toolbelt does); none: nobody can be asked. */
  readonly questions: Questions | undefined
  /** Switches a session's agent, where the runtime keeps sessions' agents (a toolbelt does). */
  readonly sessionAgent: SessionAgent | undefined
  /** Starts subagents on child sessions, where the runtime has an agent loop (a toolbelt does). */
  readonly subagents: Subagents | undefined
  /** The model of the turn the call belongs to; none for a call made without one (`toolbelt call`). */
  readonly model: TurnModel | undefined
  /** The project's language servers (the lsp tool, diagnostics after an edit); none without a toolbelt. */
  readonly languageServers: LanguageServers | undefined
}

/** The keys of `ctx.extra` the services are read from. */
export interface ServiceExtra {
  readonly directory?: string
  readonly worktree?: string
  readonly readLedger?: ReadLedger
  readonly requireRead?: boolean
  readonly publish?: Publish
  readonly firstTime?: (sessionID: string, key: string) => boolean
  readonly dataDir?: string
  readonly recovery?: RecoveryLog
  readonly skills?: SkillCatalog
  readonly calls?: ChildCalls
  readonly config?: Readonly<Record<string, unknown>>
  readonly env?: Readonly<Record<string, string | undefined>>
  readonly callRemoteTool?: CallRemoteTool
  readonly todos?: TodoList
  readonly questions?: Questions
  readonly sessionAgent?: SessionAgent
  /** Plugin hooks (the shell asks them for `shell.env`). */
  readonly hooks?: Hooks
  readonly subagents?: Subagents
  /** Set by whoever runs a model turn, on each call and on the query for the turn's tools. */
  readonly model?: TurnModel
  readonly languageServers?: LanguageServers
}

const fallbackLedger = new MemoryReadLedger()
const seen = new Map<string, Set<string>>()

function firstTimeInMemory(sessionID: string, key: string): boolean {
  let keys = seen.get(sessionID)
  if (!keys) {
    keys = new Set()
    seen.set(sessionID, keys)
  }
  if (keys.has(key)) return false
  keys.add(key)
  return true
}

export function services(ctx: Pick<Context, "extra">): ToolServices {
  const extra = ctx.extra as ServiceExtra
  const directory = extra.directory ?? process.cwd()
  return {
    directory,
    worktree: extra.worktree ?? directory,
    readLedger: extra.readLedger ?? fallbackLedger,
    requireRead: extra.requireRead ?? true,
    publish: extra.publish ?? (() => {}),
    firstTime: extra.firstTime ?? firstTimeInMemory,
    dataDir: typeof extra.dataDir === "string" && extra.dataDir !== "" ? extra.dataDir : undefined,
    recovery: extra.recovery,
    skills: extra.skills,
    calls: extra.calls,
    config: extra.config ?? {},
    env: extra.env ?? process.env,
    callRemoteTool: extra.callRemoteTool,
    todos: extra.todos ?? memoryTodos,
    questions: extra.questions,
    sessionAgent: extra.sessionAgent,
    subagents: extra.subagents,
    model: extra.model,
    languageServers: extra.languageServers,
  }
}
