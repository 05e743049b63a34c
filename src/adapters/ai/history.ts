// A session's history from a toolbelt's own store, for a loop of one's own: what `runTurn` replays.

import type { ModelMessage } from "ai"
import { type HostSource, hostOf } from "./host.ts"
import { replaySession } from "./replay.ts"

/**
 * The stored messages and tool parts of `sessionID` as model messages for the next turn
 * (`replaySession`): every call with a result, each step with its reasoning and provider metadata.
 * The toolbelt's store is not on its public object; this reads it for the one thing a library loop
 * needs from it.
 */
export function sessionHistory(
  toolbelt: HostSource,
  sessionID: string,
  options: { readonly media?: boolean } = {},
): ModelMessage[] {
  const { store } = hostOf(toolbelt)
  return replaySession(store.messages.list(sessionID), store.parts.list(sessionID), options)
}
