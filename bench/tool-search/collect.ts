// Collects the tool-search corpus: starts each public MCP server named in packages.json (installed
// beforehand by install.sh into a scratch folder outside the repo) over stdio with the MCP client,
// writes its `tools/list` as test/fixtures/tool-search/servers/<server>.json, and regenerates
// LICENSES.md from every package's package.json and LICENSE file.
//
//   bench/tool-search/install.sh [/tmp/mcp-corpus/pkgs]
//   node bench/tool-search/collect.ts [--pkgs /tmp/mcp-corpus/pkgs] [server...]
//   npx biome format --write test/fixtures/tool-search   (the repo's JSON style; whitespace only)
//
// Servers are started with dummy credentials (packages.json's `env`); one that still refuses to list
// its tools without a real account is skipped and said so. Only packages under a licence that lets
// their text be redistributed are written. Run on Node 22.18+ (type stripping); bin/toolbelt.js's
// pinned Node is node_modules/node/bin/node.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { licenseOf, writeLicenses } from "./licenses.ts"

export interface PackageEntry {
  readonly server: string
  readonly package: string
  /** Pinned when a later release no longer declares a licence we may redistribute. */
  readonly version?: string
  readonly args?: readonly string[]
  readonly env?: Readonly<Record<string, string>>
  /** Dummy files a server wants before it starts (credentials), path to JSON content. */
  readonly files?: Readonly<Record<string, unknown>>
  /** Why this server is left out (it will not list without a real account, or its licence), when it is. */
  readonly skip?: string
}

export interface ServerFile {
  server: string
  package: string
  version: string
  license: string
  repository: string
  description: string
  tools: { name: string; description?: string; inputSchema: unknown }[]
}

/** Licences whose terms allow the definitions' text to be copied into this repository with a notice. */
const REDISTRIBUTABLE = new Set([
  "MIT",
  "Apache-2.0",
  "ISC",
  "BSD-2-Clause",
  "BSD-3-Clause",
  "0BSD",
  "Unlicense",
  "MIT-0",
])
const TIMEOUT_MS = 90_000
const PARALLEL = 6

const here = import.meta.dirname
const repo = resolve(here, "..", "..")
const fixtures = join(repo, "test", "fixtures", "tool-search")
const serversDir = join(fixtures, "servers")

const argv = process.argv.slice(2)
const pkgsAt = argv.indexOf("--pkgs")
const pkgs = pkgsAt >= 0 ? resolve(argv.splice(pkgsAt, 2)[1]!) : "/tmp/mcp-corpus/pkgs"
const only = new Set(argv)
const scratch = dirname(pkgs)
const root = join(scratch, "root")
const home = join(scratch, "home")

async function main(): Promise<void> {
  mkdirSync(serversDir, { recursive: true })
  mkdirSync(root, { recursive: true })
  mkdirSync(home, { recursive: true })
  const entries = (
    JSON.parse(readFileSync(join(here, "packages.json"), "utf8")) as { servers: PackageEntry[] }
  ).servers
  const todo = entries.filter((entry) => only.size === 0 || only.has(entry.server))
  const queue = [...todo]
  const worker = async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) console.log(await collectOne(entry))
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker))
  writeLicenses(
    fixtures,
    entries.filter((entry) => existsSync(join(serversDir, `${entry.server}.json`))),
    (entry) => join(pkgs, entry.server, "node_modules", entry.package),
  )
}

/** One server: its package metadata, then its tools over stdio. Returns the line to print. */
async function collectOne(entry: PackageEntry): Promise<string> {
  if (entry.skip) return `skip ${entry.server}: ${entry.skip} (packages.json)`
  const packageDir = join(pkgs, entry.server, "node_modules", entry.package)
  if (!existsSync(join(packageDir, "package.json")))
    return `skip ${entry.server}: not installed (run install.sh)`
  const meta = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as Record<string, any>
  const license = licenseOf(meta, packageDir)
  if (!REDISTRIBUTABLE.has(license))
    return `skip ${entry.server}: licence "${license}" is not one we may redistribute`
  const command = commandOf(packageDir, meta, entry)
  if (!command) return `skip ${entry.server}: the package has no bin to start`

  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    HOME: home,
    PUPPETEER_SKIP_DOWNLOAD: "1",
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
    ...Object.fromEntries(Object.entries(entry.env ?? {}).map(([key, value]) => [key, fill(value)])),
  }
  for (const [path, content] of Object.entries(entry.files ?? {})) {
    mkdirSync(dirname(fill(path)), { recursive: true })
    writeFileSync(fill(path), JSON.stringify(content))
  }
  const transport = new StdioClientTransport({ ...command, env, cwd: root, stderr: "pipe" })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer | string) => {
    if (stderr.length < 4000) stderr += String(chunk)
  })
  const client = new Client({ name: "toolbelt-corpus", version: "0.1.0" })
  try {
    await client.connect(transport, { timeout: TIMEOUT_MS })
    const tools = await listRaw(client, transport)
    if (tools.length === 0) return `skip ${entry.server}: it listed no tools`
    const file: ServerFile = {
      server: entry.server,
      package: entry.package,
      version: String(meta.version),
      license,
      repository: repositoryOf(meta),
      description: client.getInstructions()?.trim() || String(meta.description ?? ""),
      // Exactly what tools/list gave, less title, annotations and output schemas (not searched).
      tools: tools.map((tool) => ({
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: tool.inputSchema,
      })),
    }
    writeFileSync(join(serversDir, `${entry.server}.json`), `${JSON.stringify(file, null, 2)}\n`)
    return `ok   ${entry.server}: ${tools.length} tools (${entry.package}@${file.version}, ${license})`
  } catch (error) {
    const said = stderr.trim().split("\n").slice(-3).join(" | ").slice(0, 300)
    return `skip ${entry.server}: ${error instanceof Error ? error.message : String(error)}${said ? ` [stderr: ${said}]` : ""}`
  } finally {
    await client.close().catch(() => {})
  }
}

type RawTool = { name: string; description?: string; inputSchema: unknown }

/**
 * tools/list exactly as the server sent it, page by page. The client's own listTools() validates each
 * tool against the current schema and throws on servers real clients use (an input schema without
 * `"type": "object"`), so the raw responses are read off the transport instead.
 */
async function listRaw(client: Client, transport: StdioClientTransport): Promise<RawTool[]> {
  const pages: { tools: RawTool[]; nextCursor?: string }[] = []
  const inner = transport.onmessage
  transport.onmessage = (message) => {
    const result = (message as { result?: { tools?: unknown } }).result
    if (result && Array.isArray(result.tools)) pages.push(result as (typeof pages)[number])
    inner?.(message)
  }
  // Without a cursor the client walks every page itself; when it throws on a page, go on from there.
  let failure: unknown
  await client.listTools(undefined, { timeout: TIMEOUT_MS }).catch((error) => {
    failure = error
  })
  for (let cursor = pages.at(-1)?.nextCursor; failure !== undefined && cursor && pages.length < 64; ) {
    const before = pages.length
    await client.listTools({ cursor }, { timeout: TIMEOUT_MS }).catch(() => {})
    if (pages.length === before) break
    cursor = pages.at(-1)?.nextCursor
  }
  if (pages.length === 0) throw failure ?? new Error("tools/list gave no answer")
  const tools = pages.flatMap((page) => page.tools)
  return tools
}

/** How to start a package's server: its bin (the one named like the package when it has several). */
function commandOf(
  packageDir: string,
  meta: Record<string, any>,
  entry: PackageEntry,
): { command: string; args: string[] } | undefined {
  const bins: Record<string, string> =
    typeof meta.bin === "string" ? { [String(meta.name).split("/").pop()!]: meta.bin } : (meta.bin ?? {})
  const names = Object.keys(bins)
  if (names.length === 0) return undefined
  const base = String(meta.name).split("/").pop()!
  const name =
    names.find((candidate) => candidate === base) ?? names.find((n) => n.includes("mcp")) ?? names[0]!
  const file = join(packageDir, bins[name]!)
  const args = (entry.args ?? []).map(fill)
  const head = readFileSync(file).subarray(0, 200).toString("utf8")
  const isScript = /\.(c|m)?js$/.test(file) || /^#!.*\bnode\b/.test(head)
  return isScript ? { command: process.execPath, args: [file, ...args] } : { command: file, args }
}

function fill(value: string): string {
  return value.replaceAll("{root}", root).replaceAll("{home}", home)
}

function repositoryOf(meta: Record<string, any>): string {
  const raw = typeof meta.repository === "string" ? meta.repository : meta.repository?.url
  if (!raw) return String(meta.homepage ?? "")
  return String(raw)
    .replace(/^git\+/, "")
    .replace(/\.git$/, "")
    .replace(/^git:\/\//, "https://")
    .replace(/^github:/, "https://github.com/")
    .replace(/^([\w-]+\/[\w.-]+)$/, "https://github.com/$1")
}

await main()
