// A session's journal, step by step: every call's requested, asked, decided, started, progress and
// finished (or interrupted) entries in the order the store wrote them, read again as calls move.
import { request } from "./api.js"
import { html, useEffect, useState } from "./html.js"

/** Characters of an entry's data shown before "more". */
const SHORT = 160

/** `parts`: the session's calls (their tools name the entries); `version` changes when a call moves. */
export function Journal({ sessionID, parts, version }) {
  const [entries, setEntries] = useState(undefined)
  const [error, setError] = useState("")
  useEffect(() => {
    let stale = false
    request("GET", `/api/sessions/${encodeURIComponent(sessionID)}/journal`)
      .then((found) => {
        if (!stale) {
          setEntries(found)
          setError("")
        }
      })
      .catch((failure) => !stale && setError(`Could not read the journal: ${failure.message}`))
    return () => {
      stale = true
    }
  }, [sessionID, version])
  if (error) return html`<p class="error-text" role="alert">${error}</p>`
  if (!entries) return html`<p class="empty">Reading the journal…</p>`
  if (entries.length === 0)
    return html`<p class="empty">The journal of this session is empty: no call yet.</p>`
  const tools = new Map(parts.map((part) => [part.callID, part.tool]))
  return html`<table class="journal" aria-label="Journal">
    <thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Call</th><th scope="col">Step</th><th scope="col">What</th></tr></thead>
    <tbody>
      ${entries.map(
        (entry) => html`<tr key=${entry.seq} data-kind=${entry.kind} data-call=${entry.callID ?? ""}>
          <td class="seq">${entry.seq}</td>
          <td class="time">${new Date(entry.time).toLocaleTimeString()}</td>
          <td class="call-ref">${tools.get(entry.callID) ?? ""} <code>${entry.callID ?? ""}</code></td>
          <td><span class=${`step ${entry.kind}`}>${entry.kind}</span></td>
          <td class="data"><${Data} value=${entry.data} /></td>
        </tr>`,
      )}
    </tbody>
  </table>`
}

/** An entry's data as JSON: short inline, the whole of it on demand. */
function Data({ value }) {
  if (value === undefined || value === null) return null
  const json = JSON.stringify(value)
  if (json.length <= SHORT) return html`<code>${json}</code>`
  return html`<details><summary><code>${json.slice(0, SHORT)}…</code></summary>
    <pre class="output" tabindex="0">${JSON.stringify(value, null, 2)}</pre></details>`
}
