// webfetch of a 2 MB HTML page from a loopback server to markdown, against turndown called directly on
// the same bytes: what the tool adds (fetch, guard, charset, rules, settlement) over the conversion.
// Run: node bench/webfetch.bench.ts (or node bench/run.ts webfetch)
//
// 1. Build a 2 MB documentation page: the saved page's article repeated, inside its real head and chrome.
// 2. Serve it from 127.0.0.1 in this process.
// 3. In a fresh Node per side (so each peak RSS is that side's alone), after one warm-up:
//    - tool: `toolbelt.call({tool: "webfetch", input: {url, refresh: true}})` through createToolbelt
//      (guard opened for 127.0.0.1, in-memory store), RUNS times;
//    - direct: `new TurndownService(opencode's options).turndown(html)` on the same bytes, RUNS times;
//    - convert: the tool's own conversion (decode + htmlToMarkdown, its rules) on the same bytes, so
//      the difference to the tool is what fetching and settlement add.
// 4. Medians, peak RSS of each child, and the tool's overhead ratios (tool / direct, tool / convert).
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { median } from "./lib/measure.ts"

const RUNS = 10
const TARGET_BYTES = 2 * 1024 * 1024
const MiB = 1024 * 1024
const FIXTURE = new URL("../src/tools/webfetch/fixtures/docs-page.html.bin", import.meta.url)

/** The saved page with its article repeated until the page is 2 MB. */
export function bigPage(): Buffer {
  const page = readFileSync(FIXTURE, "utf8")
  const start = page.indexOf("<article>")
  const end = page.indexOf("</article>") + "</article>".length
  const article = page.slice(start, end)
  const copies = Math.ceil((TARGET_BYTES - page.length) / article.length)
  return Buffer.from(page.slice(0, end) + article.repeat(copies) + page.slice(end), "utf8")
}

interface Side {
  readonly ms: number[]
  readonly maxRssMiB: number
  readonly outputChars: number
}

export async function run(): Promise<Record<string, number>> {
  const { serve } = await import("../src/platform/net/fixtures/loopback.ts")
  const html = bigPage()
  const site = await serve((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(html)
  })
  try {
    const url = `${site.origin}/docs/guides/streaming`
    const tool = await child("tool", url)
    const direct = await child("direct", url)
    const convert = await child("convert", url)
    const toolMs = median(tool.ms)
    const directMs = median(direct.ms)
    const convertMs = median(convert.ms)
    return {
      pageMiB: html.length / MiB,
      toolMedianMs: toolMs,
      directMedianMs: directMs,
      convertMedianMs: convertMs,
      overheadRatio: toolMs / directMs,
      overheadOverConversion: toolMs / convertMs,
      toolPeakRssMiB: tool.maxRssMiB,
      directPeakRssMiB: direct.maxRssMiB,
      convertPeakRssMiB: convert.maxRssMiB,
      toolMarkdownChars: tool.outputChars,
      directMarkdownChars: direct.outputChars,
      convertMarkdownChars: convert.outputChars,
    }
  } finally {
    await site.close()
  }
}

export function report(results: Record<string, number>): void {
  const f = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2))
  console.log(`  page                         ${f(results.pageMiB!)} MiB of HTML`)
  console.log(
    `  webfetch (tool, median)      ${f(results.toolMedianMs!)} ms, peak RSS ${f(results.toolPeakRssMiB!)} MiB`,
  )
  console.log(
    `  turndown directly (median)   ${f(results.directMedianMs!)} ms, peak RSS ${f(results.directPeakRssMiB!)} MiB`,
  )
  console.log(
    `  the tool's conversion alone  ${f(results.convertMedianMs!)} ms, peak RSS ${f(results.convertPeakRssMiB!)} MiB`,
  )
  console.log(`  overhead ratio (tool/direct) ${f(results.overheadRatio!)}`)
  console.log(`  tool / its conversion alone  ${f(results.overheadOverConversion!)}`)
  console.log(
    `  markdown chars               tool ${results.toolMarkdownChars}, its conversion ${results.convertMarkdownChars}, direct ${results.directMarkdownChars}`,
  )
}

/** Runs one side in a fresh Node and reads its timings and peak RSS. */
function child(mode: Mode, url: string): Promise<Side> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), "--side", mode, url], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    let out = ""
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk
    })
    proc.on("error", reject)
    proc.on("close", (code) => {
      if (code !== 0) reject(new Error(`the ${mode} side exited ${code}`))
      else resolve(JSON.parse(out) as Side)
    })
  })
}

type Mode = "tool" | "direct" | "convert"

async function side(mode: Mode, url: string): Promise<Side> {
  const ms: number[] = []
  let outputChars = 0
  if (mode === "tool") {
    const { createToolbelt } = await import("../src/compose/toolbelt.ts")
    const dataDir = await mkdtemp(join(tmpdir(), "toolbelt-bench-webfetch-"))
    const toolbelt = await createToolbelt({
      directory: process.cwd(),
      dataDir,
      config: { webfetch: { allow_hosts: ["127.0.0.1"] } },
      store: "memory",
      sweep: false,
      mcp: false,
      customTools: false,
    })
    for (let index = 0; index <= RUNS; index++) {
      const start = performance.now()
      const result = await toolbelt.call({ tool: "webfetch", input: { url, refresh: true } })
      if (result.status !== "completed") throw new Error(result.error)
      if (index > 0) ms.push(performance.now() - start)
      // The model gets a bounded preview; the whole markdown is in the output store.
      const saved = result.metadata.outputPath as string | undefined
      outputChars = saved ? (await readFile(saved, "utf8")).length : result.output.length
    }
    await toolbelt.close()
    await rm(dataDir, { recursive: true, force: true })
  } else if (mode === "convert") {
    const { htmlToMarkdown } = await import("../src/tools/webfetch/html-to-markdown.ts")
    const { decodeText } = await import("../src/tools/webfetch/decode-text.ts")
    const bytes = bigPage()
    for (let index = 0; index <= RUNS; index++) {
      const start = performance.now()
      const { text } = decodeText(bytes, { contentType: "text/html; charset=utf-8", markup: true })
      const markdown = await htmlToMarkdown(text, new URL(url))
      if (index > 0) ms.push(performance.now() - start)
      outputChars = markdown.length
    }
  } else {
    const { default: Turndown } = await import("turndown")
    const bytes = bigPage()
    for (let index = 0; index <= RUNS; index++) {
      const start = performance.now()
      const html = new TextDecoder().decode(bytes)
      const turndown = new Turndown({
        headingStyle: "atx",
        hr: "---",
        bulletListMarker: "-",
        codeBlockStyle: "fenced",
        emDelimiter: "*",
      })
      turndown.remove(["script", "style", "meta", "link"])
      const markdown = turndown.turndown(html)
      if (index > 0) ms.push(performance.now() - start)
      outputChars = markdown.length
    }
  }
  return { ms, maxRssMiB: process.resourceUsage().maxRSS / 1024, outputChars }
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === new URL(`file://${entry}`).href) {
  if (process.argv[2] === "--side") {
    console.log(JSON.stringify(await side(process.argv[3] as Mode, process.argv[4] ?? "")))
  } else {
    const results = await run()
    report(results)
  }
}
