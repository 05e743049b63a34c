// Questions a tool put to the person: each as a form (a choice per question, one's own answer where
// allowed), answered or dismissed.
import { html, useState } from "./html.js"
import { answer } from "./store.js"

export function Questions({ questions, sessions }) {
  if (questions.length === 0) return null
  const title = (id) => sessions.find((session) => session.id === id)?.title || id
  return html`<section class="questions" aria-labelledby="questions-heading">
    <h2 id="questions-heading">${questions.length === 1 ? "The agent asks you" : `The agent asks you (${questions.length})`}</h2>
    ${questions.map((request) => html`<${QuestionForm} key=${request.id} request=${request} session=${title(request.sessionID)} />`)}
  </section>`
}

function QuestionForm({ request, session }) {
  const [picked, setPicked] = useState(() => request.questions.map(() => []))
  const [own, setOwn] = useState(() => request.questions.map(() => ""))
  const [busy, setBusy] = useState(false)
  const pick = (index, label, multiple, checked) =>
    setPicked((current) =>
      current.map((labels, at) => {
        if (at !== index) return labels
        if (!multiple) return [label]
        return checked ? [...labels, label] : labels.filter((other) => other !== label)
      }),
    )
  const answers = () =>
    request.questions.map((question, index) => {
      const typed = own[index].trim()
      if (!typed) return picked[index]
      return question.multiple ? [...picked[index], typed] : [typed]
    })
  const send = async (value) => {
    setBusy(true)
    await answer(request, value)
    setBusy(false)
  }
  return html`<form class="question" data-question=${request.id} onSubmit=${(event) => {
    event.preventDefault()
    send(answers())
  }}>
    <p class="question-session">in ${session}</p>
    ${request.questions.map((question, index) => {
      const name = `${request.id}-${index}`
      return html`<fieldset>
        <legend><span class="header">${question.header}</span> ${question.question}</legend>
        ${question.options.map(
          (option, at) => html`<label class="option" for=${`${name}-${at}`}>
            <input id=${`${name}-${at}`} type=${question.multiple ? "checkbox" : "radio"} name=${name}
              checked=${picked[index].includes(option.label)}
              onChange=${(event) => pick(index, option.label, question.multiple, event.currentTarget.checked)} />
            <span class="label">${option.label}</span>
            ${option.description ? html`<span class="description">${option.description}</span>` : null}
          </label>`,
        )}
        ${
          question.custom === false
            ? null
            : html`<label class="own" for=${`${name}-own`}>${question.multiple ? "Add your own answer" : "Or your own answer"}</label>
            <input id=${`${name}-own`} type="text" value=${own[index]}
              onInput=${(event) => {
                const text = event.currentTarget.value
                setOwn((current) => current.map((value, at) => (at === index ? text : value)))
              }} />`
        }
      </fieldset>`
    })}
    <div class="answers">
      <button type="submit" class="allow" disabled=${busy}>Answer</button>
      <button type="button" class="deny" disabled=${busy} onClick=${() => send(undefined)}>Dismiss</button>
      <p class="saves">Dismissing stops the agent's turn.</p>
    </div>
  </form>`
}
