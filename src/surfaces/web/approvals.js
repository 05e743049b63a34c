// The "always" approvals saved for the project, each revocable.
import { ago } from "./format.js"
import { html } from "./html.js"
import { revoke } from "./store.js"

export function Approvals({ approvals }) {
  return html`<section class="approvals" aria-labelledby="approvals-heading">
    <h2 id="approvals-heading">Saved approvals</h2>
    <p class="hint">What "Always allow" saved for this project. A configured deny still wins; revoking one makes its calls ask again.</p>
    ${
      approvals.length === 0
        ? html`<p class="empty">None saved.</p>`
        : html`<table>
          <thead><tr><th scope="col">Permission</th><th scope="col">Pattern</th><th scope="col">Saved</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
          <tbody>
            ${approvals.map(
              (approval) => html`<tr key=${approval.id} data-approval=${approval.id}>
                <td><code>${approval.permission}</code></td>
                <td><code>${approval.pattern}</code></td>
                <td>${ago(approval.time)}</td>
                <td><button type="button" class="deny" aria-label=${`Revoke ${approval.permission} ${approval.pattern}`}
                  onClick=${() => revoke(approval)}>Revoke</button></td>
              </tr>`,
            )}
          </tbody>
        </table>`
    }
  </section>`
}
