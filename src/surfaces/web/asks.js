// The permission asks waiting for an answer: what is asked, the details, and the three answers, with
// exactly what "always" saves. A new ask takes the focus (unless someone is typing), and an ask with
// the focus answers keys: `a` allows once, `r` rejects (with the message, if one was written).
import { Diff } from "./diff.js"
import { shown } from "./format.js"
import { html, useEffect, useRef, useState } from "./html.js"
import { reply, select } from "./store.js"

export function Asks({ asks, sessions }) {
  if (asks.length === 0) return null
  const title = (id) => sessions.find((session) => session.id === id)?.title || id
  return html`<section class="asks" aria-labelledby="asks-heading">
    <h2 id="asks-heading">${asks.length === 1 ? "1 call is waiting for you" : `${asks.length} calls are waiting for you`}</h2>
    ${asks.map((ask) => html`<${Ask} key=${ask.id} ask=${ask} session=${title(ask.sessionID)} />`)}
  </section>`
}

function Ask({ ask, session }) {
  const [message, setMessage] = useState("")
  const [busy, setBusy] = useState(false)
  const ref = useRef(null)
  const send = async (body) => {
    setBusy(true)
    await reply(ask, body)
    setBusy(false)
  }
  const rejectWith = () =>
    send(message.trim() ? { reply: "reject", message: message.trim() } : { reply: "reject" })
  useEffect(() => {
    if (!typing()) ref.current?.focus()
  }, [])
  const onKeyDown = (event) => {
    if (busy || event.altKey || event.ctrlKey || event.metaKey || isField(event.target)) return
    if (event.key === "a") {
      event.preventDefault()
      send({ reply: "once" })
    } else if (event.key === "r") {
      event.preventDefault()
      rejectWith()
    }
  }
  const tool = ask.tool?.name ?? "A tool"
  const saves = ask.always.join(", ")
  const { diff, ...details } = ask.metadata ?? {}
  const messageID = `message-${ask.id}`
  return html`<article class="ask" aria-label=${`${tool} asks for ${ask.permission}`} data-ask=${ask.id}
    ref=${ref} tabindex="-1" aria-keyshortcuts="a r" aria-describedby=${`keys-${ask.id}`} onKeyDown=${onKeyDown}>
    <header>
      <span class="tool">${tool}</span> asks for <strong class="permission">${ask.permission}</strong>
      <button type="button" class="link session-link" onClick=${() => select(ask.sessionID)}>in ${session}</button>
    </header>
    <ul class="patterns">${ask.patterns.map((pattern) => html`<li><code>${pattern}</code></li>`)}</ul>
    ${typeof diff === "string" && diff ? html`<${Diff} text=${diff} />` : null}
    ${
      Object.keys(details).length
        ? html`<dl class="details">${Object.entries(details).map(
            ([key, value]) => html`<dt>${key}</dt><dd><pre>${shown(value)}</pre></dd>`,
          )}</dl>`
        : null
    }
    <div class="answers">
      <button type="button" class="allow" disabled=${busy} onClick=${() => send({ reply: "once" })}>Allow once</button>
      <button type="button" class="always" disabled=${busy} onClick=${() => send({ reply: "always" })}
        aria-describedby=${`always-${ask.id}`}>Always allow</button>
      <p class="saves" id=${`always-${ask.id}`}>
        ${
          saves
            ? html`Always saves <code>${ask.permission}</code> for <code>${saves}</code> in this project; revoke it under Approvals.`
            : "Always saves nothing: no pattern matches only this call, so it allows this call once."
        }
      </p>
    </div>
    <form class="reject" onSubmit=${(event) => {
      event.preventDefault()
      rejectWith()
    }}>
      <label for=${messageID}>Message to the agent (optional)</label>
      <textarea id=${messageID} rows="2" value=${message} onInput=${(event) => setMessage(event.currentTarget.value)}
        placeholder="What it should do instead"></textarea>
      <button type="submit" class="deny" disabled=${busy}>Reject</button>
    </form>
    <p class="keys hint" id=${`keys-${ask.id}`}>Keys: <kbd>a</kbd> allows once, <kbd>r</kbd> rejects.</p>
  </article>`
}

/** Whether the focus is in a text field (a new ask must not take it from someone typing). */
function typing() {
  return isField(document.activeElement)
}

function isField(element) {
  return (
    element instanceof HTMLElement &&
    (element.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName))
  )
}
