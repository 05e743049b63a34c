// Small text helpers the views share.

/** "3 s ago", "5 min ago", or the date. */
export function ago(time, now = Date.now()) {
  const seconds = Math.max(0, Math.round((now - time) / 1000))
  if (seconds < 60) return `${seconds} s ago`
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 24) return `${hours} h ago`
  return new Date(time).toLocaleDateString()
}

/** "240 ms", "3.2 s". */
export function duration(ms) {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`
}

/** What a call works on, in a few words: its command, path or pattern, else its input as JSON. */
export function summary(input) {
  for (const key of ["command", "filePath", "path", "pattern", "url", "query", "description"]) {
    const value = input?.[key]
    if (typeof value === "string" && value) return value
  }
  if (Array.isArray(input?.questions))
    return input.questions.map((question) => question?.question).join(" · ")
  const json = JSON.stringify(input ?? {})
  return json === "{}" ? "" : json
}

/** A value of an ask's metadata as text. */
export function shown(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2)
}
