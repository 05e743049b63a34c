// The sessions, most recently active first, with a search box; each says what waits in it, and the
// host and project it was created on (a fleet's sessions come from many), and marks those with
// activity since they were last shown.
import { ago } from "./format.js"
import { html, useState } from "./html.js"
import { select } from "./store.js"

export function Sessions({ sessions, selected, asks, parts, unseen = {} }) {
  const [search, setSearch] = useState("")
  const needle = search.trim().toLowerCase()
  const shown = needle
    ? sessions.filter((session) => `${session.title}\n${session.id}`.toLowerCase().includes(needle))
    : sessions
  return html`<nav class="sessions" aria-label="Sessions">
    <label for="session-search">Search sessions</label>
    <input id="session-search" type="search" value=${search} placeholder="Title or id"
      onInput=${(event) => setSearch(event.currentTarget.value)} />
    <ul>
      ${shown.map((session) => {
        const asked = asks.filter((ask) => ask.sessionID === session.id)
        const waiting = asked.length
        // A call waiting for an answer is counted as waiting, not running.
        const held = new Set(asked.map((ask) => ask.tool?.callID))
        const running = Object.values(parts[session.id] ?? {}).filter(
          (part) => part.state.status === "running" && !held.has(part.callID),
        ).length
        return html`<li key=${session.id}>
          <button type="button" class=${session.id === selected ? "session current" : "session"}
            aria-current=${session.id === selected ? "page" : undefined} onClick=${() => select(session.id)}>
            <span class="session-title">${session.title || session.id}</span>
            <span class="session-meta">${session.agent ? `${session.agent} · ` : ""}${ago(session.time.updated)}</span>
            ${session.host ? html`<span class="session-where" title=${`on ${session.host}, in ${session.projectID}`}>${session.host} · ${folder(session.projectID)}</span>` : null}
            ${waiting ? html`<span class="count asks-count" title="asks waiting">${waiting} waiting</span>` : null}
            ${running ? html`<span class="count running-count">${running} running</span>` : null}
            ${unseen[session.id] && session.id !== selected ? html`<span class="count new-count" title="Activity since you last looked">new</span>` : null}
          </button>
        </li>`
      })}
    </ul>
    ${shown.length === 0 ? html`<p class="empty">${sessions.length ? "No session matches." : "No sessions yet: calls show up here as they are made."}</p>` : null}
  </nav>`
}

/** A project directory's last part (the whole path is the element's title). */
function folder(path) {
  const parts = String(path ?? "")
    .split(/[\\/]/)
    .filter(Boolean)
  return parts.at(-1) ?? path
}
