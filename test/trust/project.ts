// A project that brings a tool file (its own repository) and a home of its own, whose config dir holds
// the trust store: nothing of the developer's trust is read or written.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cliEnv } from "../fixtures/cli.ts"

export interface TrustProject {
  readonly dir: string
  readonly home: string
  /** The environment the CLI runs with (`cliEnv(home)`). */
  readonly env: Record<string, string>
  /** Where the tool file is. */
  readonly toolFile: string
  /** The file the tool writes when it runs: proof that the project's code ran. */
  readonly ranMarker: string
  /** The trust store's file. */
  readonly storeFile: string
  remove(): Promise<void>
}

/** The tool file: `hello` answers a fixed line and leaves a marker file behind, so a test sees it ran. */
export function helloTool(marker: string): string {
  return `import { writeFileSync } from "node:fs"
export default {
  description: "Says hello from the project.",
  args: {},
  execute: async () => {
    writeFileSync(${JSON.stringify(marker)}, "ran")
    return "hello from the project tool"
  },
}
`
}

export async function trustProject(): Promise<TrustProject> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-trust-")))
  const home = await realpath(await mkdtemp(join(tmpdir(), "toolbelt-trust-home-")))
  await mkdir(join(dir, ".git"))
  await mkdir(join(dir, ".toolbelt", "tools"), { recursive: true })
  const ranMarker = join(home, "tool-ran")
  const toolFile = join(dir, ".toolbelt", "tools", "hello.ts")
  await writeFile(toolFile, helloTool(ranMarker))
  await writeFile(join(dir, "notes.txt"), "a file of the project\n")
  const env = cliEnv(home) as Record<string, string>
  return {
    dir,
    home,
    env,
    toolFile,
    ranMarker,
    storeFile: join(home, ".config", "toolbelt", "trusted-projects.json"),
    async remove() {
      await rm(dir, { recursive: true, force: true })
      await rm(home, { recursive: true, force: true })
    },
  }
}
