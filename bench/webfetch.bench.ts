// webfetch of large HTML pages from a loopback server to markdown: time and peak memory of the tool, of
// its conversion alone, and of turndown called directly on the same bytes (what the conversion costs
// without slimming and sections).
// Run: node bench/webfetch.bench.ts (or node bench/run.ts webfetch)
//
// 1. Three pages (src/tools/webfetch/fixtures/big-pages.ts): the saved documentation page's article
//    repeated to 2 MiB and to 5 MiB (the response cap; mostly content), and a 5 MiB web application
//    page (a quarter JSON state, a fifth inline CSS and JavaScript, utility classes, SVG icons, ...).
// 2. Serve them from 127.0.0.1 in this process.
// 3. For each page, in a fresh Node per side (so each peak is that side's alone):
//    - tool: `toolbelt.call({tool: "webfetch", input: {url, refresh: true}})` through createToolbelt
//      (guard opened for 127.0.0.1, in-memory store);
//    - convert: the tool's conversion (convertPage: decode, then markdown in-process or, for a large
//      page, in its worker thread) on the same bytes;
//    - direct: `new TurndownService(opencode's options).turndown(html)` on the same bytes.
//    Each side runs once (the first call, modules loading included), then RUNS more times. Peak RSS is
//    the process's high-water mark (VmHWM, reset before the first call, worker threads included),
//    reported after the first call and after all calls, with the RSS before the first call.
// 4. Print per page: median ms, peak RSS and its growth over the RSS before, for each side.
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { median, resetPeakRss } from "./lib/measure.ts"

const RUNS = 5
const MiB = 1024 * 1024

type PageName = "docs-2MiB" | "docs-5MiB" | "app-5MiB"
const PAGES: readonly PageName[] = ["docs-2MiB", "docs-5MiB", "app-5MiB"]
type Mode = "tool" | "convert" | "direct"
const MODES: readonly Mode[] = ["tool", "convert", "direct"]

async function page(name: PageName): Promise<Buffer> {
  const { appPage, docsPage } = await import("../src/tools/webfetch/fixtures/big-pages.ts")
  if (name === "docs-2MiB") return docsPage(2 * MiB)
  return name === "docs-5MiB" ? docsPage(5 * MiB) : appPage(5 * MiB)
}

interface Side {
  readonly ms: number[]
  readonly firstMs: number
  readonly rssBeforeMiB: number
  readonly firstPeakMiB: number
  readonly peakMiB: number
  readonly outputChars: number
}

export async function run(): Promise<Record<string, number>> {
  const { serve } = await import("../src/platform/net/fixtures/loopback.ts")
  const bodies = new Map<string, Buffer>()
  for (const name of PAGES) bodies.set(`/${name}`, await page(name))
  const site = await serve((request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(bodies.get(request.url ?? "") ?? "")
  })
  const results: Record<string, number> = {}
  try {
    for (const name of PAGES) {
      results[`${name}.pageMiB`] = bodies.get(`/${name}`)!.length / MiB
      for (const mode of MODES) {
        const side = await child(mode, name, `${site.origin}/${name}`)
        results[`${name}.${mode}.medianMs`] = median(side.ms)
        results[`${name}.${mode}.firstMs`] = side.firstMs
        results[`${name}.${mode}.rssBeforeMiB`] = side.rssBeforeMiB
        results[`${name}.${mode}.firstPeakMiB`] = side.firstPeakMiB
        results[`${name}.${mode}.peakMiB`] = side.peakMiB
        results[`${name}.${mode}.outputChars`] = side.outputChars
      }
    }
  } finally {
    await site.close()
  }
  return results
}

export function report(results: Record<string, number>): void {
  const f = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1))
  const label = { tool: "webfetch (tool)", convert: "its conversion", direct: "turndown directly" }
  for (const name of PAGES) {
    console.log(`  ${name}: ${f(results[`${name}.pageMiB`]!)} MiB of HTML`)
    for (const mode of MODES) {
      const get = (key: string) => results[`${name}.${mode}.${key}`]!
      const before = get("rssBeforeMiB")
      console.log(
        `    ${label[mode].padEnd(18)} first ${f(get("firstMs")).padStart(6)} ms, peak ${f(get("firstPeakMiB"))} MiB (+${f(get("firstPeakMiB") - before)}); ` +
          `median of ${RUNS} ${f(get("medianMs")).padStart(6)} ms, peak ${f(get("peakMiB"))} MiB (+${f(get("peakMiB") - before)}); ` +
          `${get("outputChars")} chars`,
      )
    }
  }
}

/** Runs one side in a fresh Node and reads its timings and peaks. */
function child(mode: Mode, name: PageName, url: string): Promise<Side> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), "--side", mode, name, url], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    let out = ""
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk
    })
    proc.on("error", reject)
    proc.on("close", (code) => {
      if (code !== 0) reject(new Error(`the ${mode} side for ${name} exited ${code}`))
      else resolve(JSON.parse(out) as Side)
    })
  })
}

/** The process's peak RSS since the last reset (worker threads included), in MiB. */
function peakRssMiB(): number {
  let kib: string | undefined
  try {
    kib = /VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]
  } catch {
    // Not Linux: the peak of the whole run.
  }
  return kib === undefined ? process.resourceUsage().maxRSS / 1024 : Number(kib) / 1024
}

async function side(mode: Mode, name: PageName, url: string): Promise<Side> {
  const call = await caller(mode, name, url)
  const rssBeforeMiB = process.memoryUsage.rss() / MiB
  resetPeakRss()
  let start = performance.now()
  let outputChars = await call.once()
  const firstMs = performance.now() - start
  const firstPeakMiB = peakRssMiB()
  const ms: number[] = []
  for (let index = 0; index < RUNS; index++) {
    start = performance.now()
    outputChars = await call.once()
    ms.push(performance.now() - start)
  }
  const peakMiB = peakRssMiB()
  await call.close()
  return { ms, firstMs, rssBeforeMiB, firstPeakMiB, peakMiB, outputChars }
}

/** One side's call (returning the markdown's length) and what ends it. */
async function caller(
  mode: Mode,
  name: PageName,
  url: string,
): Promise<{ once(): Promise<number>; close(): Promise<void> }> {
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
    return {
      async once() {
        const result = await toolbelt.call({ tool: "webfetch", input: { url, refresh: true } })
        if (result.status !== "completed") throw new Error(result.error)
        // The model gets a bounded preview; the whole markdown is in the output store.
        const saved = result.metadata.outputPath as string | undefined
        return saved ? (await readFile(saved, "utf8")).length : result.output.length
      },
      async close() {
        await toolbelt.close()
        await rm(dataDir, { recursive: true, force: true })
      },
    }
  }
  const bytes = await page(name)
  if (mode === "convert") {
    const { convertPage } = await import("../src/tools/webfetch/convert.ts")
    const fetched = {
      url: new URL(url),
      status: 200,
      contentType: "text/html; charset=utf-8",
      bytes,
      redirects: [],
    }
    return {
      once: async () => (await convertPage(fetched, "markdown")).output.length,
      close: async () => {},
    }
  }
  const { default: Turndown } = await import("turndown")
  return {
    async once() {
      const turndown = new Turndown({
        headingStyle: "atx",
        hr: "---",
        bulletListMarker: "-",
        codeBlockStyle: "fenced",
        emDelimiter: "*",
      })
      turndown.remove(["script", "style", "meta", "link"])
      return turndown.turndown(new TextDecoder().decode(bytes)).length
    },
    close: async () => {},
  }
}

const entry = process.argv[1]
if (entry !== undefined && import.meta.url === new URL(`file://${entry}`).href) {
  if (process.argv[2] === "--side") {
    const [mode, name, url] = process.argv.slice(3) as [Mode, PageName, string]
    console.log(JSON.stringify(await side(mode, name, url)))
  } else {
    report(await run())
  }
}
