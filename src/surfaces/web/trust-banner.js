// The banner of a project that is not trusted: what it brings that this server left out, and the
// command that trusts it. Nothing shows when nothing was left out (most projects).
import { html } from "./html.js"

/** `trust` is the `trust` object of GET /api/info. */
export function TrustBanner({ trust }) {
  if (!trust || trust.leftOut.length === 0) return null
  const why =
    trust.reason === "changed"
      ? "This project was trusted, but what it would run has changed since, so it is not trusted now."
      : "This project is not trusted."
  return html`<section class="trust-banner" role="status" aria-label="Project trust">
    <p><strong>${why}</strong> What it brings is not run or applied here; only the built-in tools work, under your rules:</p>
    <ul>
      ${trust.leftOut.map((item) => html`<li><span class="detail">${item.detail}</span> <code class="file">${item.file}</code></li>`)}
    </ul>
    <p>To apply it, review these files, run <code class="how">${trust.howToTrust}</code> in a terminal, then restart <code>toolbelt serve</code>.</p>
  </section>`
}
