// What a test of `toolbelt run` against the scripted model server needs: a fresh project and home for
// each test, the server it serves (closed after the test), and the command line that points at it.
import { mkdtemp, realpath, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach } from "vitest"
import { type FakeOpenAI, fakeOpenAI, type Reply } from "./openai-server.ts"

export interface ScriptedRuns {
  /** This test's project directory (its real path). */
  project(): string
  /** This test's home (config and data dir below it). */
  home(): string
  /** Serves `script` for this test (a later call replaces the server; each is closed after the test). */
  serve(script: Reply[]): Promise<FakeOpenAI>
  /** `--model` and `--base-url` for the server at `baseURL`. */
  model(baseURL: string): string[]
}

/** Registers the hooks that give each test of the file its project, home and server. */
export function scriptedRuns(name: string): ScriptedRuns {
  let project = ""
  let home = ""
  const servers: FakeOpenAI[] = []
  beforeEach(async () => {
    project = await realpath(await mkdtemp(join(tmpdir(), `toolbelt-${name}-`)))
    home = await mkdtemp(join(tmpdir(), `toolbelt-${name}-home-`))
  })
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close()
    await rm(project, { recursive: true, force: true })
    await rm(home, { recursive: true, force: true })
  })
  return {
    project: () => project,
    home: () => home,
    async serve(script) {
      const server = await fakeOpenAI(script)
      servers.push(server)
      return server
    },
    model: (baseURL) => ["--model", "openai-compatible/test-model", "--base-url", baseURL],
  }
}
