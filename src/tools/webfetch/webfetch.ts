import * as Tool from "../../runtime/tool/index.ts"
import { READS_THE_WEB } from "../kit/declarations.ts"
import { loadText } from "../kit/load-text.ts"
import { type Parameters, parameters, type WebfetchMetadata } from "./params.ts"

/**
 * Fetches a URL through the address guard and returns it in the format asked for.
 * 1. The URL must be http(s); ask `webfetch` for it (an "always" remembers its origin, `https://host/*`).
 * 2. A page fetched in the last 15 minutes for the same format (and guard policy) is answered from the
 *    cache, unless the call asks to refresh.
 * 3. Fetch: browser headers, redirects re-checked by the guard, the body capped at 5 MB while it
 *    streams, the timeout (30 s, at most 120) and the call's abort both ending it.
 * 4. Convert (images attached, PDFs as text, HTML to markdown or text, other text as is), each bounded
 *    by what it produces (convert.ts): PDFs and a large page's markdown in a worker thread with bounded
 *    memory, terminated when the same timeout passes. Then shape the result: title
 *    `<url> (<content type>)`, metadata with the final URL, status, size, cache.
 */
export const WebfetchTool = Tool.define<Parameters, WebfetchMetadata>(
  "webfetch",
  () => ({
    description: loadText(import.meta.url, "description.txt"),
    parameters,
    // The work (address policy, page cache, fetching) is loaded at the first fetch, not at every start-up.
    execute: (params, ctx) => import("./execute.ts").then(({ execute }) => execute(params, ctx)),
  }),
  { annotations: READS_THE_WEB },
)
