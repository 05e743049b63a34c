// Talking to the server: JSON requests, and the event stream that reconnects by itself.

/** A failed request: its status and the server's message. */
export class RequestError extends Error {
  constructor(status, message) {
    super(message)
    this.status = status
  }
}

/** A JSON request to the API; resolves with the parsed body (undefined for 204). */
export async function request(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  })
  if (response.status === 204) return undefined
  const text = await response.text()
  let parsed
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  if (!response.ok) throw new RequestError(response.status, parsed?.error ?? `${response.status} ${text}`)
  return parsed
}

/**
 * Follows `/events`. The browser's EventSource reconnects by itself and sends the id of the last
 * event it got, so the server resumes after it; when the stream is closed for good (the server was
 * down long enough, or refused), a new one is opened after a pause, with that id as `?after=`.
 * `onStatus` hears "open" and "reconnecting"; `onEvent` every event, parsed.
 */
export function followEvents({ onEvent, onStatus }) {
  let source
  let lastID = null
  let timer
  let delay = 500
  let stopped = false
  const open = () => {
    if (stopped) return
    source = new EventSource(lastID ? `/events?after=${encodeURIComponent(lastID)}` : "/events")
    source.onopen = () => {
      delay = 500
      onStatus("open")
    }
    source.onmessage = (message) => {
      if (message.lastEventId) lastID = message.lastEventId
      let event
      try {
        event = JSON.parse(message.data)
      } catch {
        return
      }
      onEvent(event)
    }
    source.onerror = () => {
      onStatus("reconnecting")
      if (source.readyState !== EventSource.CLOSED) return
      source.close()
      timer = setTimeout(open, delay)
      delay = Math.min(delay * 2, 5000)
    }
  }
  open()
  return () => {
    stopped = true
    clearTimeout(timer)
    source?.close()
  }
}
