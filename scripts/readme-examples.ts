// The README's command-line examples, run for real: every ```console block holds `$ toolbelt ...` lines,
// each followed by the output that command prints. test/readme-examples.test.ts fails when a shown
// output is not what the command prints; `npm run readme` (this file run directly) rewrites them.
//
// 1. Find the console blocks and, in each, the commands (`$ ` lines) and the output shown after each.
// 2. Run each command with bash from the repository root, `toolbelt` being this clone's bin/toolbelt.js,
//    with a fresh HOME and data dir (nothing of the developer's config or approvals).
// 3. Show the clone's own path as /path/to/toolbelt, so the text is the same in every clone.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "..")
export const README = join(ROOT, "README.md")
/** How the clone's path is written in the README. */
export const SHOWN_ROOT = "/path/to/toolbelt"

export interface Example {
  readonly command: string
  readonly shown: string
}

const BLOCK = /^```console\n([\s\S]*?)^```$/gm

/** The commands of every console block, with the output shown after each. */
export function examples(markdown: string): Example[] {
  return [...markdown.matchAll(BLOCK)].flatMap((match) => parseBlock(match[1]!))
}

function parseBlock(body: string): Example[] {
  const out: { command: string; lines: string[] }[] = []
  for (const line of body.replace(/\n$/, "").split("\n")) {
    if (line.startsWith("$ ")) out.push({ command: line.slice(2), lines: [] })
    else out.at(-1)?.lines.push(line)
  }
  return out.map(({ command, lines }) => ({ command, shown: lines.length ? `${lines.join("\n")}\n` : "" }))
}

/** What `command` prints on stdout, run as the README's reader would from the clone. */
export function run(command: string): string {
  const home = mkdtempSync(join(tmpdir(), "toolbelt-readme-"))
  try {
    const bin = join(ROOT, "bin", "toolbelt.js")
    const script = `toolbelt() { node ${JSON.stringify(bin)} "$@"; }\n${command}`
    const stdout = execFileSync("bash", ["-c", script], {
      cwd: ROOT,
      encoding: "utf8",
      input: "",
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        TOOLBELT_DATA_DIR: join(home, "data"),
      },
    })
    const shown = stdout.replaceAll(ROOT, SHOWN_ROOT)
    // Shown as lines in the block: a last line without its newline still ends before the fence.
    return shown === "" || shown.endsWith("\n") ? shown : `${shown}\n`
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

/** The markdown with every console block's outputs replaced by what its commands print now. */
export function render(markdown: string): string {
  return markdown.replace(BLOCK, (_block, body: string) => {
    const lines = parseBlock(body).flatMap(({ command }) => [`$ ${command}\n`, run(command)])
    return `\`\`\`console\n${lines.join("")}\`\`\``
  })
}

if (import.meta.main) {
  const before = readFileSync(README, "utf8")
  const after = render(before)
  writeFileSync(README, after)
  console.log(before === after ? "README examples are current." : "README examples updated.")
}
