// A form for a tool's input, made from its JSON Schema: strings, numbers, booleans, enums, arrays of
// strings (one a line) and nested objects get fields of their own; anything else (unions, arrays of
// objects, …) a JSON box. The value is built as the person types; empty optional fields are left out.
import { html, useState } from "./html.js"

/** The schema's one type: `["string","null"]` is a string; unions and untyped schemas have none. */
function typeOf(schema) {
  if (Array.isArray(schema?.enum)) return "enum"
  const type = Array.isArray(schema?.type) ? schema.type.filter((t) => t !== "null") : [schema?.type]
  if (type.length !== 1 || typeof type[0] !== "string") return schema?.properties ? "object" : "json"
  if (type[0] === "array") return typeOf(schema.items) === "string" ? "strings" : "json"
  if (type[0] === "object") return schema.properties ? "object" : "json"
  return type[0]
}

/** The fields of an object schema. `value` is the object so far; `onChange` gets the next one. */
export function ObjectFields({ schema, value, onChange, path }) {
  const required = new Set(schema.required ?? [])
  const set = (key, next) => {
    const copy = { ...value }
    if (next === undefined) delete copy[key]
    else copy[key] = next
    onChange(copy)
  }
  return html`${Object.entries(schema.properties ?? {}).map(
    ([key, property]) =>
      html`<${Field} key=${key} name=${key} schema=${property} required=${required.has(key)}
        value=${value?.[key]} onChange=${(next) => set(key, next)} id=${`${path}-${key}`} />`,
  )}`
}

function Field({ name, schema, required, value, onChange, id }) {
  const type = typeOf(schema)
  const label = html`<label for=${id}>${name}${required ? html` <span class="required" aria-label="required">*</span>` : null}
    <span class="field-type">${type === "strings" ? "strings, one a line" : type}</span></label>`
  const help = schema.description
    ? html`<p class="field-help" id=${`${id}-help`}>${schema.description}</p>`
    : null
  const described = schema.description ? `${id}-help` : undefined
  let input
  switch (type) {
    case "object":
      return html`<fieldset class="field nested"><legend>${name}${required ? " *" : ""}</legend>${help}
        <${ObjectFields} schema=${schema} value=${value ?? {}} path=${id}
          onChange=${(next) => onChange(Object.keys(next).length || required ? next : undefined)} /></fieldset>`
    case "enum":
      input = html`<select id=${id} aria-describedby=${described} value=${value === undefined ? "" : JSON.stringify(value)}
        onChange=${(event) => onChange(event.currentTarget.value === "" ? undefined : JSON.parse(event.currentTarget.value))}>
        <option value="">${required ? "(choose)" : "(none)"}</option>
        ${schema.enum.map((option) => html`<option value=${JSON.stringify(option)}>${String(option)}</option>`)}
      </select>`
      break
    case "boolean":
      input = html`<input id=${id} type="checkbox" aria-describedby=${described} checked=${value === true}
        onChange=${(event) => onChange(event.currentTarget.checked)} />`
      break
    case "number":
    case "integer":
      input = html`<input id=${id} type="number" aria-describedby=${described} step=${type === "integer" ? "1" : "any"}
        value=${value ?? ""} onInput=${(event) => {
          const text = event.currentTarget.value
          onChange(text === "" ? undefined : Number(text))
        }} />`
      break
    case "strings":
      input = html`<textarea id=${id} rows="3" aria-describedby=${described} value=${(value ?? []).join("\n")}
        onInput=${(event) => {
          const lines = event.currentTarget.value.split("\n").filter((line) => line !== "")
          onChange(lines.length || required ? lines : undefined)
        }}></textarea>`
      break
    case "string":
      input = html`<input id=${id} type="text" aria-describedby=${described} value=${value ?? ""}
        onInput=${(event) => onChange(event.currentTarget.value === "" && !required ? undefined : event.currentTarget.value)} />`
      break
    default:
      input = html`<${JsonBox} id=${id} described=${described} onChange=${onChange} />`
  }
  return html`<div class="field">${label}${help}${input}</div>`
}

/** Raw JSON for what the form cannot draw; left out while empty, flagged while it does not parse. */
export function JsonBox({ id, described, onChange, initial = "", rows = 3 }) {
  const [text, setText] = useState(initial)
  const [bad, setBad] = useState("")
  return html`<textarea id=${id} rows=${rows} class="json" aria-describedby=${described} aria-invalid=${bad ? "true" : undefined}
      value=${text} placeholder="JSON"
      onInput=${(event) => {
        const next = event.currentTarget.value
        setText(next)
        if (next.trim() === "") {
          setBad("")
          onChange(undefined)
          return
        }
        try {
          onChange(JSON.parse(next))
          setBad("")
        } catch (failure) {
          setBad(`Not JSON yet: ${failure.message}`)
        }
      }}></textarea>
    ${bad ? html`<p class="field-help error-text">${bad}</p>` : null}`
}
