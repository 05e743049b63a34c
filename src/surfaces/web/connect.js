// What the empty page shows: how to connect an agent to this server's MCP endpoint, as a Claude Code
// command and an opencode config, each with a copy button. The token itself is never shown (the page
// does not have it, and a screenshot must not carry it): the snippets read it from the environment.
import { html, useState } from "./html.js"

/** The variable the snippets read the token from; `toolbelt serve` takes its token from it too. */
const TOKEN_VARIABLE = "TOOLBELT_SERVE_TOKEN"

export function Connect({ info }) {
  const url = `${location.origin}/mcp`
  const token = info?.auth === true
  const claude = `claude mcp add --transport http toolbelt ${url}${
    token ? ` --header "Authorization: Bearer $${TOKEN_VARIABLE}"` : ""
  }`
  const opencode = JSON.stringify(
    {
      $schema: "https://opencode.ai/config.json",
      mcp: {
        toolbelt: {
          type: "remote",
          url,
          enabled: true,
          ...(token ? { headers: { Authorization: `Bearer {env:${TOKEN_VARIABLE}}` } } : {}),
        },
      },
    },
    null,
    2,
  )
  return html`<section class="connect" aria-labelledby="connect-heading">
    <h2 id="connect-heading">Connect an agent</h2>
    <p>No calls yet. Agents reach this server's tools over MCP (streamable HTTP) at</p>
    <${Snippet} label="MCP endpoint" text=${url} id="mcp-url" />
    ${
      token
        ? html`<p class="hint">This server needs its token: <code>toolbelt serve</code> printed it at start (or took it from <code>${TOKEN_VARIABLE}</code>). The lines below read it from <code>${TOKEN_VARIABLE}</code>; set that variable where the agent runs.</p>`
        : null
    }
    <h3>Claude Code</h3>
    <${Snippet} label="Claude Code command" text=${claude} id="connect-claude" />
    <h3>opencode <span class="hint">(opencode.json)</span></h3>
    <${Snippet} label="opencode configuration" text=${opencode} id="connect-opencode" />
    <p class="hint">Calls they make show up here as they happen, with their asks waiting for you above.</p>
  </section>`
}

/** A line or block to copy, with its button; the button says when it copied. */
function Snippet({ label, text, id }) {
  const [copied, setCopied] = useState("")
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied("Copied")
    } catch {
      // No clipboard (an insecure origin, a refused permission): select the text to copy by hand.
      const range = document.createRange()
      range.selectNodeContents(document.getElementById(id))
      getSelection()?.removeAllRanges()
      getSelection()?.addRange(range)
      setCopied("Selected: press Ctrl+C")
    }
  }
  return html`<div class="snippet">
    <pre id=${id} aria-label=${label} tabindex="0"><code>${text}</code></pre>
    <button type="button" class="copy" aria-label=${`Copy the ${label}`} onClick=${copy}>Copy</button>
    <span class="copied" role="status">${copied}</span>
  </div>`
}
