// One session's calls, oldest first, each saying where it stands (call-state.js): pending, running
// (elapsed time ticking, the output as it streams, Stop), waiting for you, completed, or failed in its
// own way. A command is shown as the command, its description beside it; output opens at its end.
import { elapsed, FAILED, OPEN, outcome, outputID } from "./call-state.js"
import { Diff } from "./diff.js"
import { duration, summary } from "./format.js"
import { html, useEffect, useRef, useState } from "./html.js"
import { stopCall } from "./store.js"

/** Lines of a command shown before "Show all". */
const COMMAND_LINES = 3

/** `elsewhere`: the host the session was created on, when it is not this server's (a fleet). */
export function Timeline({ parts, asks, elsewhere }) {
  if (parts.length === 0) return html`<p class="empty">No calls in this session yet.</p>`
  const waiting = new Set(asks.map((ask) => ask.tool?.callID))
  return html`<ol class="timeline" aria-label="Calls">
    ${parts.map(
      (part) =>
        html`<${Call} key=${part.id} part=${part} waiting=${waiting.has(part.callID)} elsewhere=${elsewhere} />`,
    )}
  </ol>`
}

/** One call's card (the conversation view places them between the model's words). */
export function Call({ part, waiting, elsewhere }) {
  const { state } = part
  const metadata = state.metadata ?? {}
  const standing = outcome(part, waiting)
  const command = typeof state.input?.command === "string" ? state.input.command : undefined
  const described = typeof state.input?.description === "string" ? state.input.description : ""
  const title = command ? described || state.title || "" : state.title || summary(state.input)
  const took = state.time?.end ? duration(state.time.end - state.time.start) : ""
  const live = typeof metadata.output === "string" ? metadata.output : undefined
  const diff = typeof metadata.diff === "string" && metadata.diff.trim() ? metadata.diff : undefined
  const whole = outputID(metadata)
  const failed = FAILED.has(standing.key)
  return html`<li class=${`call ${standing.key}`} data-call=${part.callID} data-state=${standing.key}>
    <div class="call-head">
      <span class=${`badge ${standing.key}`}>${standing.label}</span>
      <span class="tool">${part.tool}</span>
      ${title ? html`<span class="title">${title}</span>` : null}
      ${standing.detail ? html`<span class="detail">${standing.detail}</span>` : null}
      ${elsewhere ? html`<span class="host" title="The host this session was created on">on ${elsewhere}</span>` : null}
      ${OPEN.has(standing.key) && state.time?.start ? html`<${Elapsed} start=${state.time.start} />` : null}
      ${took ? html`<span class="took">${took}</span>` : null}
      ${OPEN.has(standing.key) ? html`<${Stop} part=${part} title=${title || part.tool} />` : null}
    </div>
    ${command ? html`<${Command} text=${command} />` : null}
    ${OPEN.has(standing.key) && live !== undefined ? html`<${Live} text=${live} />` : null}
    ${state.status === "error" ? html`<pre class="error-text">${state.error}</pre>` : null}
    ${state.status === "completed" && diff ? html`<${Diff} text=${diff} />` : null}
    ${
      state.status === "completed" && !diff
        ? html`<${Output} summary="Output" text=${state.output} open=${failed} />`
        : null
    }
    ${state.status === "error" && live ? html`<${Output} summary="Output before it ended" text=${live} open=${false} />` : null}
    ${whole ? html`<p class="whole"><a href=${`/api/outputs/${encodeURIComponent(whole)}`} target="_blank" rel="noopener">The whole output</a> <span class="hint">${cutHint(metadata)}</span></p>` : null}
  </li>`
}

/** What the model was given of a cut output, in words. */
function cutHint(metadata) {
  const { originalSize, truncatedSize } = metadata
  if (typeof originalSize === "number" && typeof truncatedSize === "number")
    return `(cut to ${truncatedSize} of ${originalSize} characters for the model)`
  return "(cut for the model)"
}

/** A command in monospace: its first lines, all of it on demand. */
function Command({ text }) {
  const [all, setAll] = useState(false)
  const lines = text.split("\n")
  const long = lines.length > COMMAND_LINES
  const shown = all || !long ? text : lines.slice(0, COMMAND_LINES).join("\n")
  return html`<div class="command">
    <pre aria-label="Command"><code>${shown}</code></pre>
    ${
      long
        ? html`<button type="button" class="link" aria-expanded=${all} onClick=${() => setAll(!all)}>
          ${all ? "Show the first lines" : `Show all ${lines.length} lines`}</button>`
        : null
    }
  </div>`
}

/** How long the call has been going, ticking each second. */
function Elapsed({ start }) {
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [])
  return html`<span class="elapsed" title="Running for">${elapsed(now - start)}</span>`
}

/** Stops the call through the API, whoever started it; the card then says it was stopped from here. */
function Stop({ part, title }) {
  const [busy, setBusy] = useState(false)
  return html`<button type="button" class="stop" disabled=${busy} aria-label=${`Stop ${part.tool}: ${title}`}
    onClick=${async () => {
      setBusy(true)
      await stopCall(part)
      setBusy(false)
    }}>${busy ? "Stopping…" : "Stop"}</button>`
}

/** Output that grows while the command runs, kept scrolled to its end. */
function Live({ text }) {
  const ref = useRef(null)
  useEffect(() => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight
  }, [text])
  return html`<pre class="output live" ref=${ref} tabindex="0" aria-label="Output so far">${text}</pre>`
}

/** A finished call's output, folded; it opens scrolled to its end, where errors and summaries are. */
function Output({ summary: label, text, open }) {
  const ref = useRef(null)
  const toEnd = () => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight
  }
  useEffect(toEnd, [text])
  return html`<details open=${open} onToggle=${toEnd}>
    <summary>${label}</summary>
    <pre class="output" ref=${ref} tabindex="0" aria-label=${label}>${text}</pre>
  </details>`
}
