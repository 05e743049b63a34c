// The tools view: every tool an agent may call, with its size in tokens and whether tool search defers
// it, its description and JSON Schema, and a form made from the schema to try a call in a session.
import { request } from "./api.js"
import { html, useEffect, useState } from "./html.js"
import { JsonBox, ObjectFields } from "./schema-form.js"

export function Tools({ sessions }) {
  const [tools, setTools] = useState(undefined)
  const [error, setError] = useState("")
  useEffect(() => {
    request("GET", "/api/tools")
      .then(setTools)
      .catch((failure) => setError(`Could not list the tools: ${failure.message}`))
  }, [])
  if (error) return html`<p class="error-text" role="alert">${error}</p>`
  if (!tools) return html`<p class="empty">Listing the tools…</p>`
  const total = tools.filter((tool) => !tool.deferred).reduce((sum, tool) => sum + tool.tokens, 0)
  return html`<section class="tools" aria-labelledby="tools-heading">
    <h2 id="tools-heading">Tools</h2>
    <p class="hint">${tools.length} tools; those offered up front take ${total.toLocaleString("en")} tokens of every request. Deferred tools are found by <code>tool_search</code>.</p>
    <ul class="tool-list">
      ${tools.map((tool) => html`<${ToolItem} key=${tool.name} tool=${tool} sessions=${sessions} />`)}
    </ul>
  </section>`
}

function ToolItem({ tool, sessions }) {
  const [open, setOpen] = useState(false)
  return html`<li class="tool-item" data-tool=${tool.name}>
    <details open=${open} onToggle=${(event) => setOpen(event.currentTarget.open)}>
      <summary>
        <span class="tool-name">${tool.name}</span>
        <span class="tokens" title="Its definition's size in tokens">${tool.tokens.toLocaleString("en")} tokens</span>
        ${tool.deferred ? html`<span class="count deferred">deferred</span>` : null}
        ${tool.source !== "builtin" ? html`<span class="tool-source">${tool.source}</span>` : null}
      </summary>
      ${open ? html`<${ToolDetail} tool=${tool} sessions=${sessions} />` : null}
    </details>
  </li>`
}

function ToolDetail({ tool, sessions }) {
  const [input, setInput] = useState({})
  const [raw, setRaw] = useState(false)
  const [session, setSession] = useState(sessions[0]?.id ?? "")
  const [result, setResult] = useState(undefined)
  const [busy, setBusy] = useState(false)
  const path = `try-${tool.name}`
  const drawn = tool.inputSchema?.properties && !raw
  const call = async (event) => {
    event.preventDefault()
    setBusy(true)
    setResult(undefined)
    try {
      let sessionID = session
      if (!sessionID)
        sessionID = (await request("POST", "/api/sessions", { title: `Trying ${tool.name}` })).id
      setResult(
        await request("POST", `/api/sessions/${encodeURIComponent(sessionID)}/calls`, {
          tool: tool.name,
          input,
        }),
      )
    } catch (failure) {
      setResult({ status: "error", error: failure.message })
    }
    setBusy(false)
  }
  return html`<div class="tool-detail">
    <p class="tool-description" tabindex="0">${tool.description}</p>
    <details><summary>JSON Schema</summary><pre class="output" tabindex="0">${JSON.stringify(tool.inputSchema, null, 2)}</pre></details>
    <form class="try" onSubmit=${call} aria-label=${`Try ${tool.name}`}>
      <h3>Try it</h3>
      <div class="field">
        <label for=${`${path}-session`}>Session</label>
        <select id=${`${path}-session`} value=${session} onChange=${(event) => setSession(event.currentTarget.value)}>
          <option value="">A new session</option>
          ${sessions.map((each) => html`<option value=${each.id}>${each.title || each.id}</option>`)}
        </select>
      </div>
      ${
        drawn
          ? html`<${ObjectFields} schema=${tool.inputSchema} value=${input} onChange=${setInput} path=${path} />`
          : html`<div class="field"><label for=${`${path}-json`}>Input (JSON)</label>
              <${JsonBox} id=${`${path}-json`} rows=${6} initial=${JSON.stringify(input, null, 2)} onChange=${(next) => setInput(next ?? {})} /></div>`
      }
      <p class="try-actions">
        ${tool.inputSchema?.properties ? html`<button type="button" class="link" onClick=${() => setRaw(!raw)}>${raw ? "Use the form" : "Edit as JSON"}</button>` : null}
        <button type="submit" disabled=${busy}>${busy ? "Calling…" : `Call ${tool.name}`}</button>
      </p>
    </form>
    ${result ? html`<${Result} result=${result} />` : null}
  </div>`
}

/** The settlement: the output the model would read, or the error. */
function Result({ result }) {
  const failed = result.status !== "completed"
  return html`<div class=${`try-result ${failed ? "failed" : "completed"}`} role="status">
    <p><span class=${`badge ${failed ? "error" : "completed"}`}>${result.status}</span> ${result.title ?? ""}</p>
    <pre class=${failed ? "error-text" : "output"} tabindex="0" aria-label="Result">${failed ? result.error : result.output}</pre>
  </div>`
}
