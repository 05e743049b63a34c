// The nine operations as protocol requests, and their answers in a few shapes the formatter knows.

import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  Position,
  SymbolInformation,
  WorkspaceSymbol,
} from "vscode-languageserver-types"
import type { ServerSession } from "../../runtime/tool/language-servers.ts"

export const OPERATIONS = [
  "goToDefinition",
  "findReferences",
  "hover",
  "documentSymbol",
  "workspaceSymbol",
  "goToImplementation",
  "prepareCallHierarchy",
  "incomingCalls",
  "outgoingCalls",
] as const

export type Operation = (typeof OPERATIONS)[number]

/** The operations that are about one position in the file (the others need none). */
export function needsPosition(operation: Operation): boolean {
  return operation !== "documentSymbol" && operation !== "workspaceSymbol"
}

/** A call, with the calls found for it: who calls it (incoming) or whom it calls (outgoing). */
export interface CallTree {
  readonly item: CallHierarchyItem
  readonly calls: readonly {
    readonly item: CallHierarchyItem
    readonly ranges: readonly Location["range"][]
  }[]
}

export type Answer =
  | { readonly kind: "locations"; readonly locations: readonly Location[] }
  | { readonly kind: "hover"; readonly hovers: readonly Hover[] }
  | { readonly kind: "outline"; readonly symbols: readonly (DocumentSymbol | SymbolInformation)[] }
  | { readonly kind: "symbols"; readonly symbols: readonly (SymbolInformation | WorkspaceSymbol)[] }
  | { readonly kind: "items"; readonly items: readonly CallHierarchyItem[] }
  | {
      readonly kind: "calls"
      readonly direction: "incoming" | "outgoing"
      readonly trees: readonly CallTree[]
    }

const LOCATION_METHODS = {
  goToDefinition: "textDocument/definition",
  findReferences: "textDocument/references",
  goToImplementation: "textDocument/implementation",
} as const

/** Runs `operation` on one server; `position` is 0-based UTF-16, as the protocol wants. */
export async function runOperation({
  operation,
  session,
  position,
  query,
}: {
  operation: Operation
  session: ServerSession
  position: Position
  query: string
}): Promise<Answer> {
  const textDocument = { uri: session.uri }
  switch (operation) {
    case "goToDefinition":
    case "findReferences":
    case "goToImplementation": {
      const params = {
        textDocument,
        position,
        ...(operation === "findReferences" ? { context: { includeDeclaration: true } } : {}),
      }
      const result = await session.request<Location | Location[] | LocationLink[]>(
        LOCATION_METHODS[operation],
        params,
      )
      return { kind: "locations", locations: toLocations(result) }
    }
    case "hover": {
      const hover = await session.request<Hover>("textDocument/hover", { textDocument, position })
      return { kind: "hover", hovers: hover ? [hover] : [] }
    }
    case "documentSymbol": {
      const symbols = await session.request<(DocumentSymbol | SymbolInformation)[]>(
        "textDocument/documentSymbol",
        {
          textDocument,
        },
      )
      return { kind: "outline", symbols: symbols ?? [] }
    }
    case "workspaceSymbol": {
      const symbols = await session.request<(SymbolInformation | WorkspaceSymbol)[]>("workspace/symbol", {
        query,
      })
      return { kind: "symbols", symbols: symbols ?? [] }
    }
    case "prepareCallHierarchy":
      return { kind: "items", items: await prepare(session, position) }
    case "incomingCalls":
    case "outgoingCalls": {
      const direction = operation === "incomingCalls" ? "incoming" : "outgoing"
      const trees: CallTree[] = []
      for (const item of await prepare(session, position)) {
        trees.push({ item, calls: await calls(session, item, direction) })
      }
      return { kind: "calls", direction, trees }
    }
  }
}

async function prepare(session: ServerSession, position: Position): Promise<CallHierarchyItem[]> {
  return (
    (await session.request<CallHierarchyItem[]>("textDocument/prepareCallHierarchy", {
      textDocument: { uri: session.uri },
      position,
    })) ?? []
  )
}

async function calls(
  session: ServerSession,
  item: CallHierarchyItem,
  direction: "incoming" | "outgoing",
): Promise<CallTree["calls"]> {
  if (direction === "incoming") {
    const incoming = await session.request<CallHierarchyIncomingCall[]>("callHierarchy/incomingCalls", {
      item,
    })
    return (incoming ?? []).map((call) => ({ item: call.from, ranges: call.fromRanges }))
  }
  const outgoing = await session.request<CallHierarchyOutgoingCall[]>("callHierarchy/outgoingCalls", { item })
  return (outgoing ?? []).map((call) => ({ item: call.to, ranges: call.fromRanges }))
}

/** Every shape a location request may answer with, as plain locations (a link's target name). */
export function toLocations(result: Location | Location[] | LocationLink[] | null): Location[] {
  if (!result) return []
  const list: (Location | LocationLink)[] = Array.isArray(result) ? result : [result]
  return list.map((entry) =>
    "targetUri" in entry ? { uri: entry.targetUri, range: entry.targetSelectionRange } : entry,
  )
}
