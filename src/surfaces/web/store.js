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
  /** The stored messages of turns (prompts, the model's replies), by session. */
  messages: {},
  /** A reply still streaming, by session: its message id and its text and calls in order (`segments`). */
  live: {},
  /** Sessions with activity since they were last shown. */
  unseen: {},
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
  set((current) => ({ selected: sessionID, unseen: { ...current.unseen, [sessionID]: false } }))
  try {
    const id = encodeURIComponent(sessionID)
    const [detail, messages] = await Promise.all([
      request("GET", `/api/sessions/${id}`),
      request("GET", `/api/sessions/${id}/messages`),
    ])
    set((current) => ({
      messages: { ...current.messages, [sessionID]: merged(messages, current.messages[sessionID]) },
    }))
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
      noteActivity(part.sessionID)
      set((current) => ({
        parts: withPart(current.parts, part),
        live: withLiveCall(current.live, part),
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
    case "session.created":
      set((current) =>
        current.sessions.some((session) => session.id === properties.sessionID)
          ? {}
          : { sessions: [properties.session, ...current.sessions] },
      )
      noteActivity(properties.sessionID)
      return
    case "message.updated": {
      const { message } = properties
      noteActivity(message.sessionID)
      void discovered(message.sessionID)
      set((current) => {
        const live = { ...current.live }
        if (live[message.sessionID]?.messageID === message.id) delete live[message.sessionID]
        const messages = merged([message], current.messages[message.sessionID])
        return { live, messages: { ...current.messages, [message.sessionID]: messages } }
      })
      return
    }
    case "message.text.delta": {
      const { sessionID, messageID, delta } = properties
      noteActivity(sessionID)
      set((current) => {
        const known = current.live[sessionID]
        // A reply's first words may come after its first calls (a step that only called tools).
        const segments =
          known?.messageID === messageID
            ? [...known.segments]
            : Object.values(current.parts[sessionID] ?? {})
                .filter((part) => part.messageID === messageID)
                .sort((a, b) => (a.id < b.id ? -1 : 1))
                .map((part) => ({ callID: part.callID }))
        const last = segments.at(-1)
        if (last && "text" in last) segments[segments.length - 1] = { text: last.text + delta }
        else segments.push({ text: delta })
        return { live: { ...current.live, [sessionID]: { messageID, segments } } }
      })
      return
    }
    case "todo.updated":
      set((current) => ({ todos: { ...current.todos, [properties.sessionID]: properties.todos } }))
      return
  }
}

/** Messages by id, the newer copy of each kept, oldest first. */
function merged(incoming, known = []) {
  const byID = new Map(known.map((message) => [message.id, message]))
  for (const message of incoming) byID.set(message.id, message)
  return [...byID.values()].sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : 1))
}

/** A call of the reply still streaming takes its place after the text so far. */
function withLiveCall(live, part) {
  const known = live[part.sessionID]
  if (known?.messageID !== part.messageID) return live
  if (known.segments.some((segment) => segment.callID === part.callID)) return live
  return { ...live, [part.sessionID]: { ...known, segments: [...known.segments, { callID: part.callID }] } }
}

/** A session the list lacks, seen in an event (a subagent's, whose turn speaks before it calls): listed. */
async function discovered(sessionID) {
  if (state.sessions.some((session) => session.id === sessionID)) return
  try {
    const { session } = await request("GET", `/api/sessions/${encodeURIComponent(sessionID)}`)
    set((current) =>
      current.sessions.some((other) => other.id === sessionID)
        ? {}
        : { sessions: [session, ...current.sessions] },
    )
  } catch {
    // Not listed by the API (yet): the next poll lists it.
  }
}

/** Something happened in a session not on screen: the list marks it until it is shown. */
function noteActivity(sessionID) {
  if (sessionID === state.selected || state.unseen[sessionID]) return
  set((current) => ({ unseen: { ...current.unseen, [sessionID]: true } }))
}

/**
 * Sessions made by another process sharing the store (`toolbelt run` in a terminal) are not on this
 * server's event stream: the list is read again every few seconds while the page is visible.
 */
export function pollSessions(everyMs = 5000) {
  const timer = setInterval(async () => {
    if (document.hidden || state.needsLogin || !state.info) return
    try {
      const sessions = await request("GET", "/api/sessions?limit=1000")
      const known = new Set(state.sessions.map((session) => session.id))
      const added = sessions.filter((session) => !known.has(session.id))
      if (added.length === 0) return
      set((current) => ({
        sessions: [...added, ...current.sessions],
        unseen: { ...current.unseen, ...Object.fromEntries(added.map((session) => [session.id, true])) },
      }))
    } catch {
      // The event stream says when the server is out of reach.
    }
  }, everyMs)
  return () => clearInterval(timer)
}

/**
 * Starts a turn of the server's model in a session. The reply shows through the events as it streams;
 * the request stays open until the turn ends (closing it would abort the turn). Resolves with the
 * turn's `finish` line.
 */
export async function startTurn(sessionID, prompt) {
  const response = await fetch(`/api/sessions/${encodeURIComponent(sessionID)}/turns`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ prompt }),
    credentials: "same-origin",
  })
  const text = await response.text()
  if (!response.ok) {
    let message = text
    try {
      message = JSON.parse(text).error ?? text
    } catch {}
    throw new RequestError(response.status, message)
  }
  const lines = text.trim().split("\n").filter(Boolean)
  return JSON.parse(lines.at(-1) ?? "{}")
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
