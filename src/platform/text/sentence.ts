// Another error's text as the end of one of our sentences: a library's or a server's message ends with
// a period or not, and a message we build around it ends with exactly one (ARCHITECTURE.md, "Error
// messages").

/** `text` trimmed, with a period added unless it already ends a sentence ("." "?" "!", a quote or bracket after). */
export function asSentence(text: string): string {
  const trimmed = text.trim()
  return /[.?!]["'`)\]]*$/.test(trimmed) ? trimmed : `${trimmed}.`
}
