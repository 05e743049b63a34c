import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import type { ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { brotliCompressSync, gzipSync } from "node:zlib"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { createToolbelt, type Toolbelt } from "../../compose/toolbelt.ts"
import { type Loopback, proxy, serve } from "../../platform/net/fixtures/loopback.ts"
import { MAX_RESPONSE_BYTES } from "./fetch-page.ts"
import { appPage, docsPage } from "./fixtures/big-pages.ts"
import { nestedSpans, PNG, pdf, pdfBomb, pngHeader } from "./fixtures/media.ts"
import { MAX_PARSE_DEPTH } from "./nesting.ts"

const DOCS = readFileSync(new URL("fixtures/docs-page.html.bin", import.meta.url))
const CP1252 = Buffer.from([
  ...Buffer.from("<html><head><title>Caf"),
  0xe9,
  ...Buffer.from("</title></head><body><p>Price: "),
  0x80,
  ...Buffer.from("5 "),
  0x93,
  ...Buffer.from("quoted"),
  0x94,
  ...Buffer.from(" na"),
  0xef,
  ...Buffer.from("ve</p></body></html>"),
])
// Pages as large as webfetch reads: mostly content, and a web application's (markdown in a worker thread).
const DOCS_5MB = docsPage(MAX_RESPONSE_BYTES)
const APP_5MB = appPage(MAX_RESPONSE_BYTES)
const withMeta = (bytes: Buffer, meta: string) =>
  Buffer.concat([Buffer.from(`<!doctype html><meta ${meta}>`), bytes])

let dir: string
let site: Loopback
let bomb: Buffer
/** Bytes the endless body wrote before the client went away, and whether it did. */
const endless = { written: 0, closed: false }
const open: Toolbelt[] = []

function send(
  response: ServerResponse,
  type: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
) {
  response.writeHead(200, { "content-type": type, ...headers })
  response.end(body)
}

beforeAll(async () => {
  bomb = await pdfBomb(512 * 1024 * 1024)
  dir = mkdtempSync(join(tmpdir(), "toolbelt-webfetch-"))
  site = await serve((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname
    switch (path) {
      case "/docs/guides/streaming":
        return send(response, "text/html; charset=utf-8", DOCS)
      case "/cp1252-meta":
        return send(response, "text/html", withMeta(CP1252, 'charset="windows-1252"'))
      case "/cp1252-http-equiv":
        return send(
          response,
          "text/html",
          withMeta(CP1252, 'http-equiv="Content-Type" content="text/html; charset=iso-8859-1"'),
        )
      case "/cp1252-header":
        return send(response, "text/plain; charset=ISO-8859-1", Buffer.from([0x63, 0x61, 0x66, 0xe9]))
      case "/cp1252-undeclared":
        return send(response, "text/html", CP1252)
      case "/shift-jis":
        return send(
          response,
          "text/html",
          withMeta(Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]), "charset=shift_jis"),
        )
      case "/gzip":
        return send(response, "text/html; charset=utf-8", gzipSync(DOCS), { "content-encoding": "gzip" })
      case "/br":
        return send(response, "text/html; charset=utf-8", brotliCompressSync(DOCS), {
          "content-encoding": "br",
        })
      case "/pixel.png":
        return send(response, "IMAGE/PNG; charset=binary", PNG)
      case "/untyped-image":
        response.writeHead(200, {})
        return response.end(PNG)
      case "/logo.svg":
        return send(
          response,
          "image/svg+xml",
          '<svg xmlns="http://www.w3.org/2000/svg"><title>logo</title></svg>',
        )
      case "/paper.pdf":
        return send(response, "application/pdf", pdf(["Hello PDF world", "Second (page)"]))
      case "/archive.zip":
        return send(response, "application/zip", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]))
      case "/data.json":
        return send(response, "application/json", '{"a": 1}')
      case "/endless": {
        // Chunked, no length: it ends only when the client goes away (or after 200 MB, a safety net).
        response.writeHead(200, { "content-type": "text/plain" })
        endless.written = 0
        endless.closed = false
        const chunk = Buffer.alloc(64 * 1024, 0x61)
        const pump = () => {
          while (!endless.closed && endless.written < 200 * 1024 * 1024) {
            endless.written += chunk.length
            if (!response.write(chunk)) return void response.once("drain", pump)
          }
          response.end()
        }
        response.on("close", () => {
          endless.closed = true
        })
        return pump()
      }
      case "/declared-6mb":
        response.writeHead(200, { "content-type": "text/plain", "content-length": String(6 * 1024 * 1024) })
        return response.write("a".repeat(1024))
      case "/r1":
        response.writeHead(301, { location: "/r2" })
        return response.end()
      case "/r2":
        response.writeHead(302, { location: `${site.origin}/data.json` })
        return response.end()
      case "/missing":
        response.writeHead(404, { "content-type": "text/html" })
        return response.end("<h1>Not here</h1>")
      case "/challenge":
        if (request.headers["user-agent"] !== "toolbelt") {
          response.writeHead(403, { "cf-mitigated": "challenge", "content-type": "text/html" })
          return response.end("Just a moment...")
        }
        return send(response, "text/plain", "let through")
      case "/silent":
        return // never answers
      case "/empty":
        return send(
          response,
          "text/html",
          "<html><head><title>App</title></head><body><div id=root></div><script>render()</script></body></html>",
        )
      case "/bomb.pdf":
        return send(response, "application/pdf", bomb)
      case "/nested-64k":
        return send(response, "text/html", nestedSpans(64 * 1024))
      case "/nested-1200": {
        const levels = "<div><span>".repeat(600)
        return send(response, "text/html", `<body><p>top</p>${levels}<h2>Deep heading</h2><p>deep text</p>`)
      }
      case "/huge.png":
        return send(response, "image/png", pngHeader(100_000, 100_000))
      case "/big/docs":
        return send(response, "text/html; charset=utf-8", DOCS_5MB)
      case "/big/app":
        return send(response, "text/html; charset=utf-8", APP_5MB)
      default:
        response.writeHead(404)
        return response.end()
    }
  })
})

afterEach(async () => {
  for (const toolbelt of open.splice(0)) await toolbelt.close()
})

afterAll(async () => {
  await site.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A toolbelt whose guard opens 127.0.0.1 (the loopback site), unless the config says otherwise. */
async function toolbeltWith(
  options: {
    config?: Record<string, unknown>
    env?: Record<string, string>
    decide?: Parameters<typeof createToolbelt>[0] extends infer O
      ? O extends { decide?: infer D }
        ? D
        : never
      : never
  } = {},
): Promise<Toolbelt> {
  const toolbelt = await createToolbelt({
    directory: dir,
    dataDir: join(dir, ".data"),
    config: options.config ?? { webfetch: { allow_hosts: ["127.0.0.1"] } },
    env: { PATH: process.env.PATH, ...options.env },
    store: "memory",
    sweep: false,
    mcp: false,
    ...(options.decide ? { decide: options.decide } : {}),
  })
  open.push(toolbelt)
  return toolbelt
}

async function fetchOk(input: Record<string, unknown>, toolbelt?: Toolbelt) {
  const result = await (toolbelt ?? (await toolbeltWith())).call({ tool: "webfetch", input })
  if (result.status !== "completed") throw new Error(`expected a completed call, got: ${result.error}`)
  return result
}

async function fetchError(input: Record<string, unknown>, toolbelt?: Toolbelt): Promise<string> {
  const result = await (toolbelt ?? (await toolbeltWith())).call({ tool: "webfetch", input })
  if (result.status !== "error") throw new Error(`expected an error, got: ${result.output.slice(0, 200)}`)
  return result.error
}

describe("webfetch: a saved documentation page", () => {
  it("as markdown: the article with headings, fenced code, a table and absolute links; no scripts, styles or frames", async () => {
    const url = `${site.origin}/docs/guides/streaming`
    const result = await fetchOk({ url })
    expect(result.title).toBe(`${url} (text/html; charset=utf-8)`)
    expect(result.metadata).toMatchObject({
      url,
      status: 200,
      bytes: DOCS.length,
      cached: false,
      redirects: 0,
    })
    const md = result.output
    expect(md).toContain("# Streaming responses")
    expect(md).toContain("## Reading a stream\n")
    expect(md).toContain(
      '```ts\nconst response = await harbor.get("https://example.com/big.json")\nconst reader = response.body.getReader()\nfor (;;) {\n  const { done, value } = await reader.read()\n  if (done) break\n  handle(value)\n}\n```',
    )
    expect(md).toContain("| Option | Default | Meaning |\n| --- | --- | --- |\n| `highWaterMark` | 65536 |")
    expect(md).toContain(`[Cancellation](${site.origin}/docs/guides/cancellation "Cancellation guide")`)
    expect(md).toContain(`[Getting started](${site.origin}/docs/getting-started)`)
    expect(md).toContain(`[Retries](${site.origin}/docs/guides/retries)`)
    expect(md).toContain(
      `![A response flowing through the reader](${site.origin}/docs/img/streaming-diagram.png)`,
    )
    expect(md).toContain("[help@harbor.example](mailto:help@harbor.example)")
    expect(md).toContain("[Reading a stream](#reading-a-stream)")
    expect(md).toContain("Open chat")
    expect(md).not.toContain("javascript:")
    for (const gone of [
      "gtag",
      "dataLayer",
      "tracking pixel",
      "theme-doc-toc-desktop",
      "embedded videos",
      "\u200b",
      "Direct link to",
    ])
      expect(md).not.toContain(gone)
  })

  it("as text: the readable text, code on its own lines, nothing from scripts or styles", async () => {
    const { output } = await fetchOk({ url: `${site.origin}/docs/guides/streaming`, format: "text" })
    expect(output).toContain("Streaming responses")
    expect(output).toContain("If you only need the whole body, `response.text()` is simpler & just as fast.")
    expect(output).toContain(
      'const response = await harbor.get("https://example.com/big.json")\nconst reader =',
    )
    for (const gone of ["gtag", "localStorage", "tracking pixel", "embedded videos", "<p>", "&amp;"])
      expect(output).not.toContain(gone)
  })

  it("as html: the page exactly as served", async () => {
    const { output } = await fetchOk({ url: `${site.origin}/docs/guides/streaming`, format: "html" })
    expect(output).toBe(DOCS.toString("utf8"))
  })

  it.each(["gzip", "br"])(
    "compressed with %s: decoded, and its size counted decompressed",
    async (encoding) => {
      const result = await fetchOk({ url: `${site.origin}/${encoding}` })
      expect(result.output).toContain("# Streaming responses")
      expect(result.metadata.bytes).toBe(DOCS.length)
    },
  )
})

describe("webfetch: encodings", () => {
  it.each([
    ["a <meta charset>", "/cp1252-meta"],
    ["a <meta http-equiv> naming iso-8859-1 (read as windows-1252)", "/cp1252-http-equiv"],
    ["nothing declared (not UTF-8, so windows-1252)", "/cp1252-undeclared"],
  ])("windows-1252 by %s", async (_how, path) => {
    const { output } = await fetchOk({ url: `${site.origin}${path}`, format: "text" })
    expect(output).toContain("Price: €5 “quoted” naïve")
  })

  it("the Content-Type header's charset, and Shift_JIS by <meta>", async () => {
    expect((await fetchOk({ url: `${site.origin}/cp1252-header` })).output).toBe("café")
    expect((await fetchOk({ url: `${site.origin}/shift-jis`, format: "text" })).output).toBe("日本語")
  })
})

describe("webfetch: other content", () => {
  it("an image is an attachment (its type read case-insensitively, or sniffed when the server says none)", async () => {
    for (const path of ["/pixel.png", "/untyped-image"]) {
      const result = await fetchOk({ url: `${site.origin}${path}` })
      expect(result.output).toBe("Image fetched successfully")
      // Beside the ids settlement gives every attachment.
      expect(result.attachments).toMatchObject([
        { type: "file", mime: "image/png", url: `data:image/png;base64,${PNG.toString("base64")}` },
      ])
    }
  })

  it("SVG is text, JSON is returned as it is", async () => {
    expect((await fetchOk({ url: `${site.origin}/logo.svg` })).output).toContain("<title>logo</title>")
    const json = await fetchOk({ url: `${site.origin}/data.json` })
    expect(json).toMatchObject({ output: '{"a": 1}', attachments: [] })
  })

  it("a PDF is its text, page by page", async () => {
    const { output } = await fetchOk({ url: `${site.origin}/paper.pdf` })
    expect(output).toBe("PDF, 2 pages:\n\n--- page 1 ---\nHello PDF world\n\n--- page 2 ---\nSecond (page)")
  })

  it("another binary type is refused, saying what it is", async () => {
    expect(await fetchError({ url: `${site.origin}/archive.zip` })).toBe(
      `${site.origin}/archive.zip is application/zip (8 bytes): not text, HTML, an image or a PDF, so webfetch cannot show it. Download it with a shell command if the task needs the file.`,
    )
  })

  it("a page without text (a title alone is none) says so", async () => {
    expect((await fetchOk({ url: `${site.origin}/empty` })).output).toBe(
      `(${site.origin}/empty has no text content; it may build its content with JavaScript, which webfetch does not run)`,
    )
  })
})

describe("webfetch: limits", () => {
  it("an endless body is cut off past 5 MB: refused, and the server sees the connection close", async () => {
    const error = await fetchError({ url: `${site.origin}/endless` })
    expect(error).toBe("Response too large: the body passed the 5 MB limit and was not read further.")
    await expect.poll(() => endless.closed).toBe(true)
    // Never buffered whole: the server stopped long before its 200 MB safety net.
    expect(endless.written).toBeLessThan(64 * 1024 * 1024)
  })

  it("a body declared as 6 MB is refused before it is read", async () => {
    expect(await fetchError({ url: `${site.origin}/declared-6mb` })).toBe(
      "Response too large: its Content-Length is 6291456 bytes, more than the 5 MB limit.",
    )
  })

  it("a server that does not answer in time: a timeout error naming it", async () => {
    expect(await fetchError({ url: `${site.origin}/silent`, timeout: 1 })).toBe(
      `Request timed out after 1 s fetching ${site.origin}/silent. Try again with a longer timeout (at most 120 s).`,
    )
  })

  it("an abort ends the fetch as an interruption", async () => {
    const toolbelt = await toolbeltWith()
    const abort = new AbortController()
    setTimeout(() => abort.abort(), 100)
    const result = await toolbelt.call({
      tool: "webfetch",
      input: { url: `${site.origin}/silent` },
      abort: abort.signal,
    })
    expect(result).toMatchObject({ status: "error", metadata: { interrupted: true } })
  })
})

describe("webfetch: bounded by what it produces, not only by what it reads", () => {
  it("a PDF whose 0.5 MB stream inflates to 512 MiB is stopped once it decodes past 128 MB, saying what to do", async () => {
    expect(bomb.length).toBeLessThan(1024 * 1024)
    expect(await fetchError({ url: `${site.origin}/bomb.pdf` })).toBe(
      `Reading the PDF at ${site.origin}/bomb.pdf was stopped: its compressed streams decode to more than 128 MB (the file is ${bomb.length} bytes), more than webfetch decodes for one document. If the task needs its text, download it with a shell command and extract the text there (e.g. pdftotext).`,
    )
  })

  it.each(["markdown", "text"])(
    "64 KiB of nested <div><span> is refused as %s with a message, not a stack overflow",
    async (format) => {
      expect(await fetchError({ url: `${site.origin}/nested-64k`, format })).toBe(
        `Cannot convert ${site.origin}/nested-64k to ${format}: the page nests elements more than ${MAX_PARSE_DEPTH} deep (browsers stop at 512), which no readable page does. Fetch it with format "html" to see the markup as served.`,
      )
    },
  )

  it("a page nesting 1,200 elements deep converts: what lies past the written depth keeps its text", async () => {
    const { output } = await fetchOk({ url: `${site.origin}/nested-1200` })
    expect(output).toContain("top")
    expect(output).toContain("Deep heading")
    expect(output).toContain("deep text")
  })

  it("an image whose header declares 100000×100000 pixels is refused before it is attached", async () => {
    expect(await fetchError({ url: `${site.origin}/huge.png` })).toBe(
      `${site.origin}/huge.png is a image/png of 100000×100000 pixels (10000 megapixels once decoded, from ${pngHeader(1, 1).length} bytes), more than the 40 megapixels webfetch attaches. If the task needs it, download it with a shell command and scale it down first.`,
    )
  })
})

describe("webfetch: 5 MB pages to markdown", () => {
  /** The whole markdown of a call: the model sees a bounded preview, the output store has the rest. */
  async function wholeMarkdown(url: string): Promise<string> {
    const result = await fetchOk({ url })
    const saved = result.metadata.outputPath as string | undefined
    expect(saved).toBeDefined()
    return readFileSync(saved!, "utf8")
  }
  const count = (text: string, part: string) => text.split(part).length - 1

  it("mostly content: every copy of the article, with its code, table, links and image, and nothing else", async () => {
    const md = await wholeMarkdown(`${site.origin}/big/docs`)
    const copies = count(DOCS_5MB.toString("utf8"), "<h1>Streaming responses (part ")
    expect(copies).toBeGreaterThan(800)
    expect(md.startsWith("Streaming responses | Harbor HTTP Client\n\n")).toBe(true)
    expect(md.match(/^# Streaming responses \(part \d+\)$/gm)).toHaveLength(copies)
    expect(md).toContain(`# Streaming responses (part ${copies})\n`)
    expect(count(md, '```ts\nconst response = await harbor.get("https://example.com/big.json")\n')).toBe(
      copies,
    )
    expect(
      count(md, "| Option | Default | Meaning |\n| --- | --- | --- |\n| `highWaterMark` | 65536 |"),
    ).toBe(copies)
    expect(count(md, `[Cancellation](${site.origin}/docs/guides/cancellation "Cancellation guide")`)).toBe(
      copies,
    )
    expect(
      count(md, `![A response flowing through the reader](${site.origin}/img/streaming-diagram.png)`),
    ).toBe(copies)
    expect(md.trimEnd().endsWith("Copyright © 2026 Harbor contributors. Built with Docusaurus.")).toBe(true)
    for (const gone of [
      "gtag",
      "dataLayer",
      "tracking pixel",
      "theme-doc-toc-desktop",
      "Direct link to",
      "\u200b",
    ])
      expect(md).not.toContain(gone)
  })

  it("a web application's page: every result's heading, link, install command and table, none of its CSS, JavaScript, JSON state or icons", async () => {
    const md = await wholeMarkdown(`${site.origin}/big/app`)
    const cards = count(APP_5MB.toString("utf8"), 'data-testid="result-card"')
    expect(cards).toBeGreaterThan(500)
    expect(md.startsWith("Search results for “stream” · Package Index\n\n")).toBe(true)
    expect(md.match(/^### \[pkg-\d+\]\(http:\/\/127\.0\.0\.1:\d+\/packages\/pkg-\d+\)$/gm)).toHaveLength(
      cards,
    )
    expect(md).toContain(`### [pkg-${cards}](${site.origin}/packages/pkg-${cards})`)
    expect(count(md, "```bash\nnpm install pkg-")).toBe(cards)
    expect(count(md, "| Benchmark | ops/s |\n| --- | --- |\n| parse pkg-")).toBe(Math.floor(cards / 10))
    expect(md).toContain(`![Avatar of maintainer-1](${site.origin}/avatars/1.png)`)
    expect(md).toContain(`[topic-1](${site.origin}/search?q=topic-1)`)
    expect(
      md.trimEnd().endsWith("[About](" + `${site.origin}/about) · [Privacy](${site.origin}/privacy)`),
    ).toBe(true)
    expect(md).toContain("End of results.")
    for (const gone of [
      "webpackChunk",
      "__next_f",
      "display:flex",
      '"downloads"',
      "Package Index logo",
      "impression",
      "hsl(",
      "data:image",
    ])
      expect(md).not.toContain(gone)
  })
})

describe("webfetch: the network around it", () => {
  it("follows redirects and reports where it ended", async () => {
    const result = await fetchOk({ url: `${site.origin}/r1` })
    expect(result.title).toBe(`${site.origin}/r1 (application/json)`)
    expect(result.metadata).toMatchObject({ url: `${site.origin}/data.json`, redirects: 2, status: 200 })
  })

  it("refuses a redirect chain that ends at a private address the config did not open", async () => {
    const inner = await serve((_request, response) => response.end("internal"))
    const outer = await serve((request, response) => {
      const hop = Number(new URL(request.url ?? "/", "http://x").searchParams.get("hop") ?? 0)
      const next = hop < 2 ? `/?hop=${hop + 1}` : `http://127.0.0.1:${inner.port}/admin`
      response.writeHead(302, { location: next })
      response.end()
    })
    try {
      const toolbelt = await toolbeltWith({ config: { webfetch: { allow_hosts: ["localhost"] } } })
      const error = await fetchError({ url: `http://localhost:${outer.port}/` }, toolbelt)
      expect(error).toMatch(
        `Refused to fetch http://127.0.0.1:${inner.port}/admin: 127.0.0.1 is a loopback address.`,
      )
      expect(outer.requests).toHaveLength(3)
      expect(inner.requests).toHaveLength(0)
    } finally {
      await outer.close()
      await inner.close()
    }
  })

  it("with the guard on (the default), a name resolving to loopback is refused, saying how to open it", async () => {
    const before = site.requests.length
    const toolbelt = await toolbeltWith({ config: {} })
    const error = await fetchError({ url: `http://localhost:${site.port}/data.json` }, toolbelt)
    expect(error).toMatch(
      /^Refused to fetch http:\/\/localhost:\d+\/data\.json: localhost resolves to (127\.0\.0\.1|::1), a loopback address\./,
    )
    expect(error).toContain('"webfetch": {"allow_private": true}')
    expect(site.requests.length).toBe(before)
  })

  it("allow_private opens loopback", async () => {
    const toolbelt = await toolbeltWith({ config: { webfetch: { allow_private: true } } })
    expect((await fetchOk({ url: `http://localhost:${site.port}/data.json` }, toolbelt)).output).toBe(
      '{"a": 1}',
    )
  })

  it("a config of the wrong shape is an error naming the setting", async () => {
    const toolbelt = await toolbeltWith({ config: { webfetch: { allow_private: "yes" } } })
    expect(await fetchError({ url: `${site.origin}/data.json` }, toolbelt)).toBe(
      'Invalid config: "webfetch.allow_private" must be true or false. Fix it in toolbelt.json.',
    )
  })

  it("goes through the proxy HTTP_PROXY names, unless NO_PROXY names the host", async () => {
    const forward = await proxy()
    try {
      const proxied = await toolbeltWith({ env: { HTTP_PROXY: forward.origin } })
      expect((await fetchOk({ url: `${site.origin}/data.json?proxy`, refresh: true }, proxied)).output).toBe(
        '{"a": 1}',
      )
      expect(forward.targets).toEqual([`127.0.0.1:${site.port}`])
      const bypassed = await toolbeltWith({ env: { HTTP_PROXY: forward.origin, NO_PROXY: "127.0.0.1" } })
      await fetchOk({ url: `${site.origin}/data.json?proxy`, refresh: true }, bypassed)
      expect(forward.targets).toHaveLength(1)
    } finally {
      await forward.close()
    }
  })

  it("a Cloudflare challenge is asked once more as toolbelt", async () => {
    const result = await fetchOk({ url: `${site.origin}/challenge` })
    expect(result.output).toBe("let through")
    const agents = site.requests
      .filter((request) => request.url === "/challenge")
      .map((r) => r.headers["user-agent"])
    expect(agents).toHaveLength(2)
    expect(agents[0]).toMatch(/^Mozilla\/5\.0 .* Chrome\//)
    expect(agents[1]).toBe("toolbelt")
  })

  it("sends Accept weighted to the format", async () => {
    await fetchOk({ url: `${site.origin}/data.json?accept`, format: "html" })
    const seen = site.requests.find((request) => request.url === "/data.json?accept")!
    expect(seen.headers.accept).toMatch(/^text\/html;q=1\.0/)
    expect(seen.headers["accept-language"]).toBe("en-US,en;q=0.9")
  })

  it("an error status is an error naming it", async () => {
    expect(await fetchError({ url: `${site.origin}/missing` })).toBe(
      `Request failed with status 404 (Not Found): ${site.origin}/missing. Check the URL.`,
    )
  })

  it("a URL that is not http(s) is refused before anything is asked", async () => {
    expect(await fetchError({ url: "file:///etc/passwd" })).toBe(
      "URL must start with http:// or https://: file:///etc/passwd.",
    )
  })
})

describe("webfetch: permission and cache", () => {
  it("asks webfetch for the URL; always offers its origin; the timeout is clamped to 120 s", async () => {
    const asked: unknown[] = []
    const toolbelt = await toolbeltWith({
      config: { webfetch: { allow_hosts: ["127.0.0.1"] }, permission: { webfetch: "ask" } },
      decide: async (request) => {
        asked.push({
          permission: request.permission,
          patterns: request.patterns,
          always: request.always,
          metadata: request.metadata,
        })
        return "once"
      },
    })
    await fetchOk({ url: `${site.origin}/data.json?ask`, timeout: 500 }, toolbelt)
    expect(asked).toEqual([
      {
        permission: "webfetch",
        patterns: [`${site.origin}/data.json?ask`],
        always: [`${site.origin}/*`],
        metadata: { url: `${site.origin}/data.json?ask`, format: "markdown", timeout: 120 },
      },
    ])
  })

  it("answers the same URL and format from the cache for 15 minutes; refresh fetches again", async () => {
    const toolbelt = await toolbeltWith()
    const url = `${site.origin}/data.json?cache`
    const count = () => site.requests.filter((request) => request.url === "/data.json?cache").length
    expect((await fetchOk({ url }, toolbelt)).metadata.cached).toBe(false)
    const again = await fetchOk({ url }, toolbelt)
    expect(again.metadata).toMatchObject({ cached: true, status: 200, url })
    expect(again.output).toBe('{"a": 1}')
    expect(count()).toBe(1)
    expect((await fetchOk({ url, format: "text" }, toolbelt)).metadata.cached).toBe(false)
    expect(count()).toBe(2)
    expect((await fetchOk({ url, refresh: true }, toolbelt)).metadata.cached).toBe(false)
    expect(count()).toBe(3)
  })

  it("a page fetched with the guard open is not an answer when it is closed", async () => {
    const url = `http://localhost:${site.port}/data.json?policy`
    await fetchOk({ url }, await toolbeltWith({ config: { webfetch: { allow_private: true } } }))
    const closed = await toolbeltWith({ config: {} })
    expect(await fetchError({ url }, closed)).toMatch(/^Refused to fetch/)
  })
})
