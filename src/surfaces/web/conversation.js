// A session as a conversation: each prompt, the model's words as it writes them, and its calls where
// it made them; calls made from outside a turn (an MCP client, the API) sit in time order between.
// A session with no turn is just its calls (timeline.js). Below, a prompt box starts a turn when the
// server has a model, and says how to configure one when it has not.
import { html, useState } from "./html.js"
import { startTurn } from "./store.js"
import { Call, Timeline } from "./timeline.js"

/**
 * `messages`: the stored prompts and replies; `live`: the reply still streaming (`{messageID,
 * segments}`); `parts`: every call of the session, oldest first.
 */
export function Conversation({ parts, messages = [], live, asks, elsewhere }) {
  if (messages.length === 0 && !live)
    return html`<${Timeline} parts=${parts} asks=${asks} elsewhere=${elsewhere} />`
  const waiting = new Set(asks.map((ask) => ask.tool?.callID))
  const byCall = new Map(parts.map((part) => [part.callID, part]))
  const card = (part) =>
    html`<${Call} key=${part.id} part=${part} waiting=${waiting.has(part.callID)} elsewhere=${elsewhere} />`
  const replies = new Set(
    messages.filter((message) => message.role === "assistant").map((message) => message.id),
  )
  if (live) replies.add(live.messageID)
  // Calls outside any turn's reply, placed among the messages by their time-ordered ids.
  const items = [
    ...messages.map((message) => ({ key: message.id.slice(4), message })),
    ...parts.filter((part) => !replies.has(part.messageID)).map((part) => ({ key: part.id.slice(4), part })),
  ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return html`<ol class="timeline conversation" aria-label="Conversation">
    ${items.map((item) =>
      item.part
        ? card(item.part)
        : item.message.role === "user"
          ? html`<${Prompt} key=${item.message.id} text=${item.message.data?.text ?? ""} />`
          : html`<${Reply} key=${item.message.id} steps=${item.message.data?.steps ?? []}
              calls=${parts.filter((part) => part.messageID === item.message.id)} byCall=${byCall} card=${card} />`,
    )}
    ${live ? html`<${LiveReply} live=${live} byCall=${byCall} card=${card} />` : null}
  </ol>`
}

function Prompt({ text }) {
  return html`<li class="message prompt"><span class="speaker">Prompt</span><p class="words">${text}</p></li>`
}

/** A stored reply: each step's text, then the calls it made; calls no step names come last. */
function Reply({ steps, calls, byCall, card }) {
  const named = new Set(steps.flatMap((step) => (step.calls ?? []).map((call) => call.callID)))
  return html`${steps.map(
    (step) => html`${step.text ? html`<${Words} text=${step.text} />` : null}
      ${(step.calls ?? []).map((call) => (byCall.has(call.callID) ? card(byCall.get(call.callID)) : null))}`,
  )}
  ${calls.filter((part) => !named.has(part.callID)).map(card)}`
}

/** The reply as it streams: its text so far and its calls in the order they came. */
function LiveReply({ live, byCall, card }) {
  return html`${live.segments.map((segment) =>
    "text" in segment
      ? html`<${Words} text=${segment.text} streaming=${true} />`
      : byCall.has(segment.callID)
        ? card(byCall.get(segment.callID))
        : null,
  )}`
}

function Words({ text, streaming }) {
  return html`<li class=${`message reply${streaming ? " streaming" : ""}`} aria-busy=${streaming ? "true" : undefined}>
    <span class="speaker">Model</span><p class="words">${text}</p>
  </li>`
}

/** Starts a turn of the server's model; without one, says how to configure it. */
export function PromptBox({ sessionID, model }) {
  const [prompt, setPrompt] = useState("")
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState("")
  if (!model)
    return html`<p class="prompt-box hint" id="no-model">No model: start <code>toolbelt serve --model provider/id</code> (or set <code>TOOLBELT_MODEL</code>) to run turns from here.</p>`
  const send = async (event) => {
    event.preventDefault()
    const text = prompt.trim()
    if (!text || busy) return
    setBusy(true)
    setOutcome("")
    try {
      const finish = await startTurn(sessionID, text)
      setPrompt("")
      if (finish.status && finish.status !== "finished")
        setOutcome(`The turn ${finish.status}${finish.error ? `: ${finish.error}` : "."}`)
    } catch (failure) {
      setOutcome(`The turn did not start: ${failure.message}`)
    }
    setBusy(false)
  }
  return html`<form class="prompt-box" onSubmit=${send}>
    <label for="prompt">Prompt <span class="hint">(${model})</span></label>
    <textarea id="prompt" rows="3" value=${prompt} disabled=${busy}
      onInput=${(event) => setPrompt(event.currentTarget.value)}
      onKeyDown=${(event) => {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) send(event)
      }}></textarea>
    <button type="submit" disabled=${busy || !prompt.trim()}>${busy ? "Running…" : "Send"}</button>
    ${outcome ? html`<p class="error-text" role="alert">${outcome}</p>` : null}
  </form>`
}
