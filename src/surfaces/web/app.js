// The page: the asks waiting for an answer on top, then the sessions and the chosen one's conversation
// or journal, the tools, or the saved approvals; live from the event stream, and saying so when the
// server is out of reach.
import { Approvals } from "./approvals.js"
import { Asks } from "./asks.js"
import { Connect } from "./connect.js"
import { html, render, useEffect, useState } from "./html.js"
import { Questions } from "./questions.js"
import { SessionView } from "./session-view.js"
import { Sessions } from "./sessions.js"
import { dismissNotice, login, pollSessions, start, useStore } from "./store.js"
import { Tools } from "./tools.js"
import { TrustBanner } from "./trust-banner.js"

function App() {
  const state = useStore()
  const view = useHash()
  const waiting = state.asks.length + state.questions.length
  useEffect(() => {
    const project = state.info?.directory.split("/").filter(Boolean).pop() ?? ""
    document.title = `${waiting ? `(${waiting}) ` : ""}toolbelt${project ? ` · ${project}` : ""}`
  }, [waiting, state.info])
  if (state.needsLogin) return html`<${Login} />`
  const session = state.sessions.find((candidate) => candidate.id === state.selected)
  // A session created on another host of the fleet: its calls ran there.
  const elsewhere =
    session?.host && state.info?.host && session.host !== state.info.host ? session.host : undefined
  const parts = Object.values(state.parts[state.selected] ?? {}).sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  )
  return html`
    <header class="top">
      <h1>toolbelt</h1>
      <span class="project" title="The project">${state.info?.directory ?? ""}</span>
      <nav class="views" aria-label="Views">
        <a href="#" aria-current=${view === "sessions" ? "page" : undefined}>Sessions</a>
        <a href="#tools" aria-current=${view === "tools" ? "page" : undefined}>Tools</a>
        <a href="#approvals" aria-current=${view === "approvals" ? "page" : undefined}>Approvals (${state.approvals.length})</a>
      </nav>
      <${Connection} connection=${state.connection} />
    </header>
    <${TrustBanner} trust=${state.info?.trust} />
    ${
      state.notice
        ? html`<div class="notice" role="alert">${state.notice} <button type="button" class="link" onClick=${dismissNotice}>Dismiss</button></div>`
        : null
    }
    <main>
      <${Asks} asks=${state.asks} sessions=${state.sessions} />
      <${Questions} questions=${state.questions} sessions=${state.sessions} />
      ${
        view === "approvals"
          ? html`<${Approvals} approvals=${state.approvals} />`
          : view === "tools"
            ? html`<${Tools} sessions=${state.sessions} />`
            : state.info && state.sessions.length === 0
              ? html`<${Connect} info=${state.info} />`
              : html`<div class="workspace">
            <${Sessions} sessions=${state.sessions} selected=${state.selected} asks=${state.asks} parts=${state.parts} unseen=${state.unseen} />
            <${SessionView} state=${state} session=${session} parts=${parts} elsewhere=${elsewhere} />
          </div>`
      }
    </main>`
}

/** The connection's state, announced when it changes. */
function Connection({ connection }) {
  const text =
    connection === "open"
      ? "Live"
      : connection === "connecting"
        ? "Connecting…"
        : "Disconnected: reconnecting…"
  return html`<span class=${`connection ${connection}`} role="status" aria-live="polite">${text}</span>`
}

function Login() {
  const [token, setToken] = useState("")
  const [error, setError] = useState("")
  return html`<main class="login">
    <h1>toolbelt</h1>
    <p>This server needs its token. Open the login link <code>toolbelt serve</code> printed, or enter the token.</p>
    <form onSubmit=${async (event) => {
      event.preventDefault()
      try {
        await login(token)
      } catch (failure) {
        setError(failure.message)
      }
    }}>
      <label for="token">Token</label>
      <input id="token" type="password" autocomplete="off" value=${token} onInput=${(event) => setToken(event.currentTarget.value)} />
      <button type="submit">Sign in</button>
      ${error ? html`<p class="error-text" role="alert">${error}</p>` : null}
    </form>
  </main>`
}

/** "sessions", "tools" or "approvals", from the address's #fragment. */
function useHash() {
  const read = () => ({ "#approvals": "approvals", "#tools": "tools" })[location.hash] ?? "sessions"
  const [view, setView] = useState(read)
  useEffect(() => {
    const onChange = () => setView(read())
    addEventListener("hashchange", onChange)
    return () => removeEventListener("hashchange", onChange)
  }, [])
  return view
}

const root = document.getElementById("app")
root.textContent = ""
render(html`<${App} />`, root)
start()
pollSessions()
