// One session's calls, oldest first, each with its state as it moves: pending, running (with the
// shell's output as it streams), completed (an edit's diff as a diff), error.
import { Diff } from "./diff.js"
import { duration, summary } from "./format.js"
import { html, useEffect, useRef } from "./html.js"

const LABEL = { pending: "pending", running: "running", completed: "completed", error: "error" }

export function Timeline({ parts, asks }) {
  if (parts.length === 0) return html`<p class="empty">No calls in this session yet.</p>`
  const waiting = new Set(asks.map((ask) => ask.tool?.callID))
  return html`<ol class="timeline" aria-label="Calls">
    ${parts.map((part) => html`<${Call} key=${part.id} part=${part} waiting=${waiting.has(part.callID)} />`)}
  </ol>`
}

function Call({ part, waiting }) {
  const { state } = part
  const interrupted = state.status === "error" && state.metadata?.interrupted === true
  const status = interrupted ? "interrupted" : LABEL[state.status]
  const title = state.title || summary(state.input)
  const took = state.time?.end ? duration(state.time.end - state.time.start) : ""
  const exit = state.metadata?.exit
  const output = typeof state.metadata?.output === "string" ? state.metadata.output : undefined
  const diff =
    typeof state.metadata?.diff === "string" && state.metadata.diff.trim() ? state.metadata.diff : undefined
  return html`<li class=${`call ${state.status}`} data-call=${part.callID}>
    <div class="call-head">
      <span class=${`badge ${state.status}`}>${status}</span>
      <span class="tool">${part.tool}</span>
      <span class="title">${title}</span>
      ${waiting ? html`<span class="badge waiting">waiting for you</span>` : null}
      ${typeof exit === "number" && exit !== 0 ? html`<span class="exit">exit ${exit}</span>` : null}
      ${took ? html`<span class="took">${took}</span>` : null}
    </div>
    ${state.status === "running" && output !== undefined ? html`<${Live} text=${output} />` : null}
    ${state.status === "error" ? html`<pre class="error-text">${state.error}</pre>` : null}
    ${state.status === "completed" && diff ? html`<${Diff} text=${diff} />` : null}
    ${
      state.status === "completed" && !diff
        ? html`<details><summary>Output</summary><pre class="output">${state.output}</pre></details>`
        : null
    }
    ${state.status === "error" && output ? html`<details><summary>Output before it ended</summary><pre class="output">${output}</pre></details>` : null}
  </li>`
}

/** Output that grows while the command runs, kept scrolled to its end. */
function Live({ text }) {
  const ref = useRef(null)
  useEffect(() => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight
  }, [text])
  return html`<pre class="output live" ref=${ref} aria-live="off" aria-label="Output so far">${text}</pre>`
}
