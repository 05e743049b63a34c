// What a project would run, contact or loosen, found by reading its files (nothing is run or imported).

import { type Dirent, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { extname, isAbsolute, join, relative } from "node:path"
import { isFile } from "../../../platform/fs/file-type.ts"
import { type ConfigFile, type ConfigLayers, readConfigFile } from "../config.ts"
import { unknownKeys } from "../keys.ts"
import { SETTING_KEYS } from "../mcp-settings.ts"
import { opencodeFilesIn } from "../other-agents.ts"
import { isInside, projectLevels } from "../search-dirs.ts"

/** What the project would run, contact or loosen, and the file it is written in. */
export interface Contribution {
  /** What the project would run, contact or loosen. */
  readonly kind: "tool-file" | "plugin" | "mcp-server" | "lsp" | "config-key" | "permission" | "agent-file"
  /** The file it is written in (absolute). */
  readonly file: string
  /** One line for a person: `MCP server "db" runs \`node server.js\``, `permission.bash["rm *"] allows`, ... */
  readonly detail: string
}

/**
 * The project config keys applied even when the project is untrusted: none of them can run code,
 * contact a host or loosen the policy (the rules that allow, inside `permission` and `agent`, are
 * contributions of their own, and the policy applies these keys tighten-only). Every other key runs
 * (`plugin`, `mcp`, `lsp`, `shell`), contacts (`webfetch`, search providers, `store`) or loosens
 * (`file.require_read`, `batch`, `doom_loop`, `permission_sources`, `subagent_depth`, ...).
 */
export const UNTRUSTED_KEYS: ReadonlySet<string> = new Set([
  "$schema",
  "permission",
  "agent",
  "tool_output",
  // Tool search's deferral changes only which tools are listed up front: a deferred tool stays callable
  // by name under its permission rules, so no value can run, contact or loosen anything ("off" or a
  // large budget costs context, not safety). `tool_search_rerank` is left out: it spends the session's
  // model on the project's say.
  "tool_search",
  "tool_search_budget",
])

/** Where tool files are looked for at each project level, as the tool-file loader does. */
const TOOL_PARENTS = [".opencode", ".toolbelt"]
const TOOL_FOLDERS = ["tool", "tools"]
const TOOL_EXTENSIONS = new Set([".js", ".ts", ".mjs", ".mts"])
/** Where agent files are looked for at each project level, as the agent-file loader does. */
const AGENT_FOLDERS = [join(".opencode", "agent"), join(".opencode", "agents"), join(".toolbelt", "agents")]
/** Files read at most under one tool folder for the fingerprint (a folder holds a few tools and helpers). */
const MAX_TOOL_FOLDER_FILES = 5000

export interface Found {
  readonly contributions: Contribution[]
  /** The files behind the contributions (their paths and contents make the fingerprint). */
  readonly files: Set<string>
}

/**
 * Everything the project at `directory` contributes:
 * 1. Its config files (`toolbelt.json(c)` in the directory and its `.toolbelt/`): plugins, MCP servers,
 *    language-server settings, any known key outside `UNTRUSTED_KEYS`, and rules that allow (an unknown
 *    key does nothing: it is reported as unknown, not counted here).
 * 2. Its `opencode.json(c)`'s and `.opencode/config.toml`'s rules that allow, when `permission_sources` names opencode.
 * 3. Agent files at every level from the repository root down (`.opencode/agent(s)/`, `.toolbelt/agents/`)
 *    whose `permission` allows or whose `tools` turns one on.
 * 4. Tool files at every level (`.opencode/tool(s)/`, `.toolbelt/tool(s)/`); every file under those
 *    folders is in the fingerprint, since a tool file may import its neighbours.
 */
export async function findContributions(options: {
  readonly directory: string
  readonly worktree: string
  readonly layers: ConfigLayers
}): Promise<Found> {
  const { directory, worktree, layers } = options
  const found: Found = { contributions: [], files: new Set() }
  const add = (contribution: Contribution, ...files: string[]) => {
    found.contributions.push(contribution)
    for (const file of [contribution.file, ...files]) found.files.add(file)
  }
  const shown = (file: string) => (isInside(file, worktree) ? relative(worktree, file) || "." : file)

  // 1. Config files.
  for (const config of layers.projectFiles) configContributions(config, directory, add)

  // 2. opencode's config: its rules that allow, when they are applied; its `experimental.batch_tool`.
  const sources = [layers.user.permission_sources, layers.project.permission_sources].flat()
  for (const file of opencodeFilesIn(directory, "project")) {
    const value = await readConfigFile(file).catch(() => undefined)
    if (!value) continue
    if (sources.includes("opencode")) rulesContributions(value, file, "", add)
    if ((value.experimental as Record<string, unknown> | undefined)?.batch_tool === true)
      add({
        kind: "config-key",
        file,
        detail: `opencode's "experimental.batch_tool" offers batch  (${shown(file)})`,
      })
  }

  // 3. Agent files.
  const levels = projectLevels(directory, worktree).reverse()
  const agentFiles = (
    await Promise.all(levels.flatMap((level) => AGENT_FOLDERS.map((f) => markdown(join(level, f)))))
  ).flat()
  if (agentFiles.length) {
    const { parseFrontmatter, splitFrontmatter } = await import("../frontmatter.ts")
    for (const file of agentFiles) {
      let front: unknown
      try {
        const split = splitFrontmatter(readFileSync(file, "utf8"))
        front = split ? parseFrontmatter(split.yaml) : undefined
      } catch {
        continue // an agent file that does not parse does not load: it loosens nothing
      }
      if (!isRecord(front)) continue
      const before = found.contributions.length
      const loosens: Contribution[] = []
      rulesOfAgent(front, file, "", (contribution) => loosens.push(contribution))
      for (const each of loosens)
        add({ kind: "agent-file", file, detail: `agent file ${shown(file)}: ${each.detail}` })
      if (found.contributions.length > before) found.files.add(file)
    }
  }

  // 4. Tool files.
  for (const level of levels) {
    for (const parent of TOOL_PARENTS) {
      for (const folder of TOOL_FOLDERS) {
        const dir = join(level, parent, folder)
        const tools = await toolFiles(dir)
        if (!tools.length) continue
        const neighbours = await filesUnder(dir)
        for (const file of tools)
          add({ kind: "tool-file", file, detail: `tool file ${shown(file)} runs its code` }, ...neighbours)
      }
    }
  }
  return found
}

type Add = (contribution: Contribution, ...files: string[]) => void

/**
 * One project config file's contributions, key by key. A key nothing reads (a typo: `keys.ts` reports
 * it, and the person sees that warning) does nothing, so it is no reason to ask for trust; nor is a
 * fixed section (`experimental`) whose every key is unknown.
 */
function configContributions({ file, value }: ConfigFile, directory: string, add: Add): void {
  const unknown = new Set(unknownKeys([{ file, value }]).map(({ key }) => key))
  const ignored = (key: string, setting: unknown) =>
    unknown.has(key) ||
    (isRecord(setting) &&
      Object.keys(setting).length > 0 &&
      Object.keys(setting).every((inner) => unknown.has(`${key}.${inner}`)))
  for (const [key, setting] of Object.entries(value)) {
    if (ignored(key, setting)) continue
    if (key === "plugin") {
      for (const spec of Array.isArray(setting) ? setting : [setting]) {
        const local = pluginFile(String(spec), file, directory)
        add(
          { kind: "plugin", file, detail: `plugin ${JSON.stringify(spec)} runs its code` },
          ...(local ? [local] : []),
        )
      }
    } else if (key === "mcp") mcpContributions(setting, file, add)
    else if (key === "lsp") lspContributions(setting, file, add)
    else if (key === "permission" || key === "agent") rulesContributions({ [key]: setting }, file, "", add)
    else if (!UNTRUSTED_KEYS.has(key))
      add({
        kind: "config-key",
        file,
        detail: `config key ${JSON.stringify(key)} can run code, contact a host or loosen the policy`,
      })
  }
}

function mcpContributions(section: unknown, file: string, add: Add): void {
  if (!isRecord(section)) {
    add({ kind: "config-key", file, detail: 'config key "mcp" names MCP servers to start or contact' })
    return
  }
  for (const [name, server] of Object.entries(section)) {
    if (SETTING_KEYS.includes(name)) {
      add({
        kind: "config-key",
        file,
        detail: `mcp.${name} sets how toolbelt's MCP server answers`,
      })
      continue
    }
    if (isRecord(server) && server.enabled === false) continue
    const command = isRecord(server) ? server.command : undefined
    const url = isRecord(server) ? server.url : undefined
    const detail =
      command !== undefined
        ? `MCP server ${JSON.stringify(name)} runs \`${[command].flat().join(" ")}\``
        : typeof url === "string"
          ? `MCP server ${JSON.stringify(name)} contacts ${url}`
          : `MCP server ${JSON.stringify(name)} is started or contacted`
    add({ kind: "mcp-server", file, detail })
  }
}

/** `lsp: false`, `true` and servers turned off run nothing; anything else starts or changes a server. */
function lspContributions(section: unknown, file: string, add: Add): void {
  if (typeof section === "boolean") return
  if (!isRecord(section)) {
    add({ kind: "lsp", file, detail: 'config key "lsp" says how language servers start' })
    return
  }
  for (const [id, entry] of Object.entries(section)) {
    if (entry === false || (isRecord(entry) && entry.disabled === true)) continue
    const command = isRecord(entry) ? entry.command : undefined
    add({
      kind: "lsp",
      file,
      detail:
        command !== undefined
          ? `language server ${JSON.stringify(id)} runs \`${[command].flat().join(" ")}\``
          : `lsp.${id} changes how a language server starts`,
    })
  }
}

/** The rules that allow in `permission` and in each `agent.<name>` (`permission`, `tools`). */
function rulesContributions(
  value: Readonly<Record<string, unknown>>,
  file: string,
  prefix: string,
  add: Add,
): void {
  allows(value.permission, `${prefix}permission`, (path) =>
    add({ kind: "permission", file, detail: `${path} allows` }),
  )
  if (!isRecord(value.agent)) return
  for (const [name, agent] of Object.entries(value.agent))
    if (isRecord(agent)) rulesOfAgent(agent, file, `agent.${name}.`, add)
}

function rulesOfAgent(
  agent: Readonly<Record<string, unknown>>,
  file: string,
  prefix: string,
  add: Add,
): void {
  allows(agent.permission, `${prefix}permission`, (path) =>
    add({ kind: "permission", file, detail: `${path} allows` }),
  )
  if (!isRecord(agent.tools)) return
  for (const [tool, enabled] of Object.entries(agent.tools))
    if (enabled === true) add({ kind: "permission", file, detail: `${prefix}tools.${tool} turns it on` })
}

/** Calls `found` with the path of each `"allow"` in a permission value (any depth). */
function allows(value: unknown, path: string, found: (path: string) => void): void {
  if (value === "allow") found(path)
  else if (isRecord(value))
    for (const [key, inner] of Object.entries(value))
      allows(
        inner,
        /^[A-Za-z_][\w-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`,
        found,
      )
}

/** The file a plugin spec would load, when it can be found without running anything. */
function pluginFile(spec: string, configFile: string, directory: string): string | undefined {
  try {
    if (spec.startsWith("file:")) return new URL(spec).pathname
    if (isAbsolute(spec)) return spec
    if (spec.startsWith(".")) return join(configFile, "..", spec)
    const name = /^(@[^/@]+\/[^@]+|[^@]+)@[^/]*$/.exec(spec)?.[1] ?? spec
    return createRequire(join(directory, "package.json")).resolve(name)
  } catch {
    return undefined
  }
}

/** `<dir>/*.{js,ts,mjs,mts}` (no `.d.ts`), files or links to files, as the tool-file loader lists them. */
async function toolFiles(dir: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await entries(dir)) {
    if (!TOOL_EXTENSIONS.has(extname(entry.name)) || /\.d\.m?ts$/.test(entry.name)) continue
    const file = join(dir, entry.name)
    if (entry.isFile()) files.push(file)
    else if (entry.isSymbolicLink() && isFile(file)) files.push(file)
  }
  return files
}

/** Every file under `dir` (links followed to files, not into folders), at most `MAX_TOOL_FOLDER_FILES`. */
async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = []
  const pending = [dir]
  while (pending.length && files.length < MAX_TOOL_FOLDER_FILES) {
    const current = pending.pop()!
    for (const entry of await entries(current)) {
      const path = join(current, entry.name)
      if (entry.isDirectory()) pending.push(path)
      else files.push(path)
    }
  }
  return files
}

/** `*.md` under `dir`, in subfolders too. */
async function markdown(dir: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await entries(dir)) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...(await markdown(path)))
    else if (entry.name.endsWith(".md")) files.push(path)
  }
  return files
}

async function entries(dir: string): Promise<Dirent[]> {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
  } catch {
    return [] // missing, or not a directory
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
