// The chosen session: its title and id, its todos, then either the conversation (prompts, the
// model's words, its calls) with the prompt box, or its journal step by step.
import { Conversation, PromptBox } from "./conversation.js"
import { html, useState } from "./html.js"
import { Journal } from "./journal.js"
import { Todos } from "./todos.js"

export function SessionView({ state, session, parts, elsewhere }) {
  const [tab, setTab] = useState("conversation")
  const asks = [...state.asks, ...state.questions]
  // The journal is read again whenever a call of the session moves.
  const version = parts.map((part) => part.state.status).join()
  return html`<section class="session-view" aria-labelledby="session-heading">
    <h2 id="session-heading">${session ? session.title || session.id : "No session selected"}</h2>
    ${
      session
        ? html`<p class="session-id"><code>${session.id}</code>${session.agent ? ` · agent ${session.agent}` : ""}${session.parentID ? html` · subagent of <code>${session.parentID}</code>` : ""}</p>
          <div class="tabs" role="group" aria-label="Show">
            <button type="button" aria-pressed=${tab === "conversation"} onClick=${() => setTab("conversation")}>Conversation</button>
            <button type="button" aria-pressed=${tab === "journal"} onClick=${() => setTab("journal")}>Journal</button>
          </div>`
        : null
    }
    <${Todos} todos=${state.todos[state.selected]} />
    ${
      !session
        ? null
        : tab === "journal"
          ? html`<${Journal} sessionID=${session.id} parts=${parts} version=${version} />`
          : html`<${Conversation} parts=${parts} messages=${state.messages[session.id]} live=${state.live[session.id]}
              asks=${asks} elsewhere=${elsewhere} />
            <${PromptBox} key=${session.id} sessionID=${session.id} model=${state.info?.model} />`
    }
  </section>`
}
