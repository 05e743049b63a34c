import { describe, expect, it } from "vitest"
import { readFields } from "./fields.ts"
import { buildServerIndex } from "./servers.ts"
import type { SearchDoc } from "./types.ts"

const doc = (server: string, tool: string, description: string): SearchDoc => ({
  name: `${server}_${tool}`,
  description,
  inputSchema: {},
  server: { name: server },
})

const docs = [
  doc("feishu", "im_message_create", "发送消息"),
  doc("feishu", "im_chat_list", "List chats in Feishu."),
  doc("teams", "send_chat_message", "Send a chat message."),
  doc("time", "current_time", "Get the current time."),
  doc("calendar", "list_events", "List events in a time range."),
  doc("calendar", "create_event", "Create an event at a time."),
]
const index = buildServerIndex(docs, readFields(docs))

describe("buildServerIndex", () => {
  it("maps each tool to its server", () => {
    expect(index.serverOf).toEqual([0, 0, 1, 2, 3, 3])
  })

  it("scores the server a query speaks of", () => {
    const scores = index.score(new Map([["feishu", 1]]))
    expect(scores[0]).toBeGreaterThan(0)
    expect(scores[1]).toBe(0)
  })

  it("a server is named by words of its own name that are mostly its own", () => {
    expect(index.named(new Set(["send", "messag", "feishu"]))).toEqual(new Set([0]))
    // "time" is in other servers' tools as often as in its own: a word, not a name.
    expect(index.named(new Set(["plot", "trend", "tim"]))).toEqual(new Set())
  })
})
