// Tool search, wired: which tools are deferred for a query, the sessions' loaded sets, the index over
// deferrable tools (rebuilt in the background when the registry changes) and the tool_search service.

import { basename, isAbsolute } from "node:path"
import { TokenCounter } from "../platform/text/tokens/count.ts"
import type { ToolSearchSettings } from "../runtime/config/config.ts"
import type { Advertised, Registry, ToolsQuery } from "../runtime/registry/registry.ts"
import type { ToolSearchControl } from "../runtime/tool-search/control.ts"
import { type Deferral, decideDeferral, needsCounts } from "../runtime/tool-search/deferral.ts"
import { LoadedSets } from "../runtime/tool-search/loaded.ts"
// The modules themselves, not rank/index.ts: the ranking's tables are built when its module loads, which
// only the index (in its worker) needs, never a start-up.
import { summaryOf } from "../runtime/tool-search/rank/summary.ts"
import type { DeferredGroup, ToolSearchService } from "../tools/tool_search/service.ts"
import { describeToolSearch } from "../tools/tool_search/tool_search.ts"
import { DeferrableIndex } from "./tool-search-index.ts"
import { rerank } from "./tool-search-rerank.ts"

/** The built-in that finds deferred tools: listed only while something is deferred. */
export const TOOL_SEARCH = "tool_search"

/** Candidates the model reranks when config asks for it. */
const RERANK_POOL = 20

const NONE: ReadonlySet<string> = new Set()

export interface ToolSearchWiring {
  readonly control: ToolSearchControl
  /** What tool_search calls get in `ctx.extra.toolSearch`. */
  readonly service: ToolSearchService
  /** The toolbelt's `tools()`: what the agent may see, with `query.listing` applied (deferral, loads, tool_search). */
  tools(query?: ToolsQuery): Promise<Advertised[]>
  /** Builds the index in the background when anything is deferrable (start-up calls it once). */
  warm(): void
  /** Forgets a session's loaded set. */
  endSession(sessionID: string): void
  /** Stops following the registry and waits for the token counts to be saved. */
  close(): Promise<void>
}

/** What a source is called in tool_search's description and results: `github`, `plugin foo`, `file x.ts`. */
export function groupName(source: string): string {
  if (source.startsWith("mcp:")) return source.slice(4)
  // A plugin or tool file given by path is named by its file: the rest of the path says nothing.
  if (source.startsWith("plugin:")) return `plugin ${fileName(source.slice(7))}`
  if (source.startsWith("custom:")) return `tool file ${fileName(source.slice(7))}`
  return source
}

function fileName(spec: string): string {
  return isAbsolute(spec) || spec.startsWith(".") ? basename(spec) : spec
}

/** The text a definition's size is counted over: what a client sends a model for it. */
function definitionText(tool: Pick<Advertised, "name" | "description" | "inputSchema">): string {
  return JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })
}

const isSearchTool = (tool: Advertised) => tool.name === TOOL_SEARCH && tool.entry.source === "builtin"

/**
 * Wires tool search for one toolbelt.
 * 1. Deferral per query (`runtime/tool-search/deferral.ts`): token counts only where `auto` needs
 *    them or `listing: "all"` shows them (o200k_base, cached in memory and in the data dir).
 * 2. `tools` (the toolbelt's): `listed` leaves deferred tools out but those the session loaded, and
 *    offers tool_search (its description naming what is deferred) only while something is; `all`
 *    lists every tool with its size and whether it is deferred.
 * 3. The index over every deferrable tool, rebuilt after each registry change in a worker thread
 *    (`tool-search-index.ts`); a search awaits it.
 * 4. The service: search filtered to what is deferred for the call's agent and session, reranked
 *    by the session's model when config asks; matches loaded into the session by the tool.
 */
export function toolSearchWiring({
  registry,
  settings,
  dataDir,
  visible,
  extraFor,
  aboutSource,
}: {
  registry: Registry
  settings: ToolSearchSettings
  dataDir: string | undefined
  /** The tools an agent may see (available, not hidden by its rules: `compose/advertise.ts`). */
  visible: (query: ToolsQuery) => Promise<Advertised[]>
  extraFor: (agent: string) => Readonly<Record<string, unknown>>
  /** A few words on a source (an MCP server's description or instructions), when it gave any. */
  aboutSource: (source: string) => string | undefined
}): ToolSearchWiring {
  const counter = new TokenCounter({ dataDir })
  const loadedSets = new LoadedSets()

  // 1. Deferral.
  const deferrals = deferralsOf({ counter, settings, aboutSource })

  // 2. Listing.
  const tools = async (query: ToolsQuery = {}) =>
    listing({
      seen: await visible(query),
      listed: query.listing ?? "listed",
      loaded: query.sessionID ? loadedSets.loaded(query.sessionID) : NONE,
      deferrals,
      counter,
    })

  // 3. The index.
  const index = new DeferrableIndex({
    registry,
    extraFor,
    server: (source) => {
      const about = aboutSource(source)
      return { name: groupName(source), ...(about ? { description: about } : {}) }
    },
  })

  // 4. The service.
  const control: ToolSearchControl = {
    loaded: (sessionID) => loadedSets.loaded(sessionID),
    load: (sessionID, names) =>
      loadedSets.load(
        sessionID,
        names.filter((name) => registry.resolve(name) !== undefined),
      ),
    onLoad: (listener) => loadedSets.onLoad(listener),
    async state(query = {}) {
      const { others, tokens, deferral } = await deferrals.decide(await visible(query), true)
      return summarise(settings, others.length, tokens ?? [], deferral)
    },
  }
  const service = searchService({ settings, visible, deferrals, index, load: control.load })

  return {
    control,
    service,
    tools,
    warm: () => index.warm(),
    endSession: (sessionID) => loadedSets.forget(sessionID),
    close() {
      index.close()
      return counter.close()
    },
  }
}

/** What is deferred among the tools an agent sees, and the deferred tools grouped by source. */
interface Deferrals {
  decide(
    visible: readonly Advertised[],
    counted: boolean,
  ): Promise<{ others: Advertised[]; tokens: number[] | undefined; deferral: Deferral }>
  groups(deferred: readonly Advertised[]): DeferredGroup[]
}

function deferralsOf({
  counter,
  settings,
  aboutSource,
}: {
  counter: TokenCounter
  settings: ToolSearchSettings
  aboutSource: (source: string) => string | undefined
}): Deferrals {
  return {
    async decide(visible, counted) {
      const others = visible.filter((tool) => !isSearchTool(tool))
      const want =
        counted ||
        needsCounts(
          others.map((tool) => ({ source: tool.entry.source })),
          settings.mode,
        )
      const tokens = want ? await counter.count(others.map(definitionText)) : undefined
      const deferral = decideDeferral(
        others.map((tool, i) => ({ name: tool.name, source: tool.entry.source, tokens: tokens?.[i] })),
        settings,
      )
      return { others, tokens, deferral }
    },
    groups(deferred) {
      const bySource = new Map<string, number>()
      for (const tool of deferred) bySource.set(tool.entry.source, (bySource.get(tool.entry.source) ?? 0) + 1)
      return [...bySource].map(([source, count]) => {
        const about = aboutSource(source)
        return { name: groupName(source), tools: count, ...(about ? { about } : {}) }
      })
    },
  }
}

/** Step 2: the tools an agent sees, as the query's `listing` lists them. */
async function listing({
  seen,
  listed,
  loaded,
  deferrals,
  counter,
}: {
  seen: readonly Advertised[]
  listed: NonNullable<ToolsQuery["listing"]>
  loaded: ReadonlySet<string>
  deferrals: Deferrals
  counter: TokenCounter
}): Promise<Advertised[]> {
  const all = listed === "all" || listed === "callable"
  const counted = listed === "all"
  const { others, tokens, deferral } = await deferrals.decide(seen, counted)
  const search = seen.find(isSearchTool)
  const offerSearch = search !== undefined && deferral.deferred.size > 0
  const described = offerSearch
    ? {
        ...search,
        description: describeToolSearch(
          deferrals.groups(others.filter((tool) => deferral.deferred.has(tool.name))),
        ),
      }
    : undefined
  const searchTokens =
    described && counted ? (await counter.count([definitionText(described)]))[0] : undefined
  const position = new Map(others.map((tool, i) => [tool, i]))
  const out: Advertised[] = []
  for (const tool of seen) {
    if (isSearchTool(tool)) {
      if (described) out.push(all ? withSize({ ...described, deferred: false }, searchTokens) : described)
      continue
    }
    const deferred = deferral.deferred.has(tool.name)
    if (all) out.push(withSize({ ...tool, deferred }, tokens?.[position.get(tool)!]))
    else if (!deferred || loaded.has(tool.name)) out.push(tool)
  }
  return out
}

/** Step 4: what tool_search calls get. */
function searchService({
  settings,
  visible,
  deferrals,
  index,
  load,
}: {
  settings: ToolSearchSettings
  visible: (query: ToolsQuery) => Promise<Advertised[]>
  deferrals: Deferrals
  index: DeferrableIndex
  load: ToolSearchService["load"]
}): ToolSearchService {
  return {
    async search({ query, limit, agent, sessionID, model, signal }) {
      // What is deferred for this agent and session (counted only where auto needs it).
      const { others, deferral } = await deferrals.decide(
        await visible({ agent, sessionID, ...(model ? { extra: { model } } : {}) }),
        false,
      )
      const deferred = others.filter((tool) => deferral.deferred.has(tool.name))
      const byName = new Map(deferred.map((tool) => [tool.name, tool]))
      const found = await (await index.current()).search(
        query,
        settings.rerank && model ? Math.max(limit, RERANK_POOL) : limit,
        new Set(byName.keys()),
      )
      let names = found.map((hit) => hit.name)
      if (settings.rerank && model && names.length > 1) {
        const docs = names.map((name) => {
          const tool = byName.get(name)!
          return { name, description: tool.description, inputSchema: tool.inputSchema }
        })
        names = (await rerank({ model, query, candidates: docs, signal })) ?? names
      }
      const matches = names.slice(0, limit).map((name) => {
        const tool = byName.get(name)!
        return {
          name,
          summary: summaryOf(tool.description),
          description: tool.description,
          inputSchema: tool.inputSchema,
        }
      })
      return { matches, deferred: deferrals.groups(deferred) }
    },
    load,
  }
}

function summarise(
  settings: ToolSearchSettings,
  offered: number,
  tokens: readonly number[],
  deferral: Deferral,
) {
  return {
    mode: settings.mode,
    budget: settings.budget,
    totalTokens: tokens.reduce((sum, count) => sum + count, 0),
    offered,
    deferred: deferral.deferred.size,
    reason: deferral.reason,
  }
}

/** A listed tool with its size in tokens, when it was counted. */
function withSize(tool: Advertised, tokens: number | undefined): Advertised {
  return tokens === undefined ? tool : { ...tool, tokens }
}
