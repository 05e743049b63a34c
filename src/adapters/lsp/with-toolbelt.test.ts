// The language servers as a toolbelt runs them: configured from toolbelt config, offered to agents as the
// lsp tool, and gone with every process of theirs once the toolbelt closes.
import { symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, expect, it } from "vitest"
import { createToolbelt } from "../../compose/toolbelt.ts"
import { makeProject, REPO, TEST_LSP_CONFIG, TS_PROJECT, tagged, testEnv } from "./fixtures/lsp-project.ts"
import { LanguageServerPool } from "./language-server-pool.ts"

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

it("a toolbelt answers lsp calls from its config's servers, and close leaves no server process", async () => {
  const project = makeProject(TS_PROJECT)
  cleanups.push(project.remove)
  const { env, tag } = testEnv()
  const toolbelt = await createToolbelt({
    directory: project.dir,
    dataDir: join(project.dir, ".data"),
    config: { lsp: TEST_LSP_CONFIG },
    store: "memory",
    env,
    mcp: false,
    sweep: false,
  })
  expect((await toolbelt.tools({ agent: "build" })).map((tool) => tool.name)).toContain("lsp")
  const result = await toolbelt.call({
    tool: "lsp",
    input: { operation: "goToDefinition", filePath: "src/main.ts", line: 4, character: 10 },
  })
  expect(result).toMatchObject({
    status: "completed",
    output: "src/math.ts:1:17: export function add(a: number, b: number): number {",
  })
  expect(tagged(tag).length).toBeGreaterThan(0)
  await toolbelt.close()
  expect(tagged(tag)).toEqual([])
})

it('"lsp": false withholds the tool and says why', async () => {
  const project = makeProject({})
  cleanups.push(project.remove)
  const toolbelt = await createToolbelt({
    directory: project.dir,
    dataDir: join(project.dir, ".data"),
    config: { lsp: false },
    store: "memory",
    mcp: false,
    sweep: false,
  })
  expect(await toolbelt.withheld({ agent: "build" })).toContainEqual({
    name: "lsp",
    reason: 'Language servers are turned off in the config ("lsp": false).',
  })
  await toolbelt.close()
})

it("a project on TypeScript 7 gets the native tsc --lsp, with pulled diagnostics", async () => {
  const project = makeProject({ ...TS_PROJECT, "package.json": '{"name":"native","type":"module"}' })
  cleanups.push(project.remove)
  symlinkSync(join(REPO, "node_modules"), join(project.dir, "node_modules"))
  const { env, tag } = testEnv()
  const pool = new LanguageServerPool({
    directory: project.dir,
    config: undefined,
    env,
    diagnosticsWaitMs: 60_000,
  })
  const main = join(project.dir, "src/main.ts")
  expect((await pool.withServers(main, async (session) => session.server))[0]).toMatchObject({ ok: true })
  expect(tagged(tag).some((line) => line.includes("--lsp --stdio"))).toBe(true)
  expect((await pool.diagnostics([main])).files[main]).toEqual([])
  writeFileSync(main, 'import { add } from "./math.js"\n\nexport const n: string = add(1, 2)\n')
  const { files } = await pool.diagnostics([main])
  expect(files[main]?.map((d) => d.message)).toEqual(["Type 'number' is not assignable to type 'string'."])
  await pool.close()
  expect(tagged(tag)).toEqual([])
})
