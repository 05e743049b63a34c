// The page's state: what the API said, kept current by the event stream. One object, replaced on
// every change; components read it through `useStore`.
import { followEvents, RequestError, request } from "./api.js"
import { useEffect, useState } from "./html.js"

const RANK = { pending: 0, running: 1, completed: 2, error: 2 }

let state = {
  /** "connecting", "open" or "reconnecting". */
  connection: "connecting",
  needsLogin: false,
  info: undefined,
  sessions: [],
  /** Tool parts by session, then by part id. */
  parts: {},
  todos: {},
  asks: [],
  approvals: [],
  questions: [],
  /** The session shown. */
  selected: undefined,
  /** The last failure to show (a reply that did not apply, …). */
  notice: undefined,
}
const listeners = new Set()

function set(patch) {
  state = { ...state, ...(typeof patch === "function" ? patch(state) : patch) }
  for (const listener of listeners) listener(state)
}

export function getState() {
  return state
}

/** The state, re-rendering the component on every change. */
export function useStore() {
  const [current, setCurrent] = useState(state)
  useEffect(() => {
    listeners.add(setCurrent)
    setCurrent(state)
    return () => listeners.delete(setCurrent)
  }, [])
  return current
}

/** A part only moves forward: a late event never takes a finished call back to running. */
function withPart(parts, part) {
  const session = parts[part.sessionID] ?? {}
  const known = session[part.id]
  if (known && (RANK[known.state.status] === 2 || RANK[part.state.status] < RANK[known.state.status]))
    return parts
  return { ...parts, [part.sessionID]: { ...session, [part.id]: part } }
}

/**
 * Starts the page: the events first (so nothing between the snapshot and the stream is missed),
 * then the snapshot once the stream says it did not resume (first connection, server restart).
 */
export function start() {
  followEvents({
    onStatus: (connection) => {
      set({ connection })
      if (connection === "reconnecting") void checkLogin()
    },
    onEvent: apply,
  })
}

async function checkLogin() {
  try {
    await request("GET", "/api/info")
  } catch (error) {
    if (error instanceof RequestError && error.status === 401) set({ needsLogin: true })
  }
}

/** Everything the page shows, from the API. */
export async function refresh() {
  try {
    const [info, sessions, asks, approvals, questions] = await Promise.all([
      request("GET", "/api/info"),
      request("GET", "/api/sessions?limit=1000"),
      request("GET", "/api/permissions"),
      request("GET", "/api/approvals"),
      request("GET", "/api/questions"),
    ])
    set({ info, sessions, asks, approvals, questions, needsLogin: false })
    const selected = state.selected ?? sessions[0]?.id
    if (selected) await select(selected)
  } catch (error) {
    if (error instanceof RequestError && error.status === 401) set({ needsLogin: true })
    else set({ notice: String(error.message ?? error) })
  }
}

/** Shows a session: its whole history from the API, then live. */
export async function select(sessionID) {
  set({ selected: sessionID })
  try {
    const detail = await request("GET", `/api/sessions/${encodeURIComponent(sessionID)}`)
    set((current) => {
      let parts = { ...current.parts, [sessionID]: {} }
      for (const part of detail.parts) parts = withPart(parts, part)
      // Events that came while the request was in flight are newer than the snapshot.
      for (const part of Object.values(current.parts[sessionID] ?? {})) parts = withPart(parts, part)
      return { parts, todos: { ...current.todos, [sessionID]: detail.todos } }
    })
  } catch (error) {
    if (!(error instanceof RequestError && error.status === 404)) set({ notice: String(error.message) })
  }
}

function apply(event) {
  const { type, properties } = event
  switch (type) {
    case "server.connected":
      if (!properties.resumed) void refresh()
      return
    case "server.sync":
      void refresh()
      return
    case "message.part.updated": {
      const { part } = properties
      const known = state.sessions.some((session) => session.id === part.sessionID)
      set((current) => ({
        parts: withPart(current.parts, part),
        sessions: known ? current.sessions : [placeholder(part), ...current.sessions],
      }))
      if (!known) void named(part.sessionID)
      // The first call on an empty page: show its session.
      if (!state.selected) void select(part.sessionID)
      return
    }
    case "permission.asked":
      set((current) =>
        current.asks.some((ask) => ask.id === properties.id) ? {} : { asks: [...current.asks, properties] },
      )
      return
    case "permission.replied":
      set((current) => ({ asks: current.asks.filter((ask) => ask.id !== properties.requestID) }))
      if (properties.reply === "always") void reloadApprovals()
      return
    case "question.asked":
      set((current) =>
        current.questions.some((question) => question.id === properties.id)
          ? {}
          : { questions: [...current.questions, properties] },
      )
      return
    case "question.replied":
    case "question.rejected":
      set((current) => ({
        questions: current.questions.filter((question) => question.id !== properties.requestID),
      }))
      return
    case "todo.updated":
      set((current) => ({ todos: { ...current.todos, [properties.sessionID]: properties.todos } }))
      return
  }
}

/** A session the list does not have yet (an MCP client's first call): shown at once, then named by `named`. */
function placeholder(part) {
  const now = Date.now()
  return { id: part.sessionID, title: `${part.tool} call`, agent: "", time: { created: now, updated: now } }
}

/** Replaces a placeholder with the session as the API has it. */
async function named(sessionID) {
  try {
    const { session } = await request("GET", `/api/sessions/${encodeURIComponent(sessionID)}`)
    set((current) => ({
      sessions: current.sessions.map((other) => (other.id === sessionID ? session : other)),
    }))
  } catch {
    // Not listed by the API (yet): the placeholder stays until the next refresh.
  }
}

async function reloadApprovals() {
  try {
    set({ approvals: await request("GET", "/api/approvals") })
  } catch (error) {
    set({ notice: String(error.message) })
  }
}

/** Answers an ask; a failure (answered elsewhere meanwhile) is shown, and the ask list reloaded. */
export async function reply(ask, body) {
  try {
    await request("POST", `/api/permissions/${encodeURIComponent(ask.id)}/reply`, body)
    set((current) => ({ asks: current.asks.filter((other) => other.id !== ask.id) }))
  } catch (error) {
    set({ notice: `The reply was not applied: ${error.message}` })
    set({ asks: await request("GET", "/api/permissions").catch(() => state.asks) })
  }
}

/** Stops a running call (whoever started it); the call's card then says it was stopped from the page. */
export async function stopCall(part) {
  const path = `/api/sessions/${encodeURIComponent(part.sessionID)}/calls/${encodeURIComponent(part.callID)}/abort?by=page`
  try {
    const { part: ended } = await request("POST", path)
    if (ended) set((current) => ({ parts: withPart(current.parts, ended) }))
  } catch (error) {
    set({ notice: `Could not stop the call: ${error.message}` })
  }
}

export async function revoke(approval) {
  try {
    await request("DELETE", `/api/approvals/${encodeURIComponent(approval.id)}`)
  } catch (error) {
    set({ notice: `Could not revoke: ${error.message}` })
  }
  await reloadApprovals()
}

/** Answers a question request (`answers`: one list of labels per question), or dismisses it (no answers). */
export async function answer(question, answers) {
  const id = encodeURIComponent(question.id)
  try {
    if (answers) await request("POST", `/api/questions/${id}/reply`, { answers })
    else await request("POST", `/api/questions/${id}/reject`)
    set((current) => ({ questions: current.questions.filter((other) => other.id !== question.id) }))
  } catch (error) {
    set({ notice: `The answer was not applied: ${error.message}` })
  }
}

export async function login(token) {
  await request("POST", "/api/login", { token })
  set({ needsLogin: false })
  await refresh()
}

export function dismissNotice() {
  set({ notice: undefined })
}
