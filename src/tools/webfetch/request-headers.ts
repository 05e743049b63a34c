/** What webfetch returns a page as. */
export type Format = "markdown" | "text" | "html"

// A current desktop Chrome: many sites serve a bot, or nothing, to an unknown agent.
export const BROWSER_USER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36"

/** Sent once more after a Cloudflare challenge: Cloudflare lets honest, named agents through where it challenges browsers. */
export const HONEST_USER_AGENT = "toolbelt"

// The representation closest to the format wanted first (a site that serves markdown saves a conversion).
const ACCEPT: Record<Format, string> = {
  markdown: "text/markdown;q=1.0, text/x-markdown;q=0.9, text/plain;q=0.8, text/html;q=0.7, */*;q=0.1",
  text: "text/plain;q=1.0, text/markdown;q=0.9, text/html;q=0.8, */*;q=0.1",
  html: "text/html;q=1.0, application/xhtml+xml;q=0.9, text/plain;q=0.8, text/markdown;q=0.7, */*;q=0.1",
}

/** The request headers for a page wanted in `format`. */
export function requestHeaders(format: Format, userAgent = BROWSER_USER_AGENT): Record<string, string> {
  return { "User-Agent": userAgent, Accept: ACCEPT[format], "Accept-Language": "en-US,en;q=0.9" }
}
