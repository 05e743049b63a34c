// The store chosen by `--store`, `TOOLBELT_STORE` and config "store", on a real PostgreSQL server
// (test/fixtures/postgres.ts; skipped, saying why, where none can start): two processes with data dirs
// of their own share one session's record, the library opens the same URL, and the password never
// shows (a wrong one, the serve banner).
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, expect, it } from "vitest"
import { internals } from "../../src/compose/internals.ts"
import { createToolbelt } from "../../src/compose/toolbelt.ts"
import { redactStoreUrl } from "../../src/platform/store/postgres/url.ts"
import { openStore } from "../../src/platform/store/store.ts"
import { cliEnv, runCli } from "../fixtures/cli.ts"
import { postgresOrSkip } from "../fixtures/postgres.ts"
import { api, makeProject, startServe } from "../serve/helpers.ts"

const pg = await postgresOrSkip()
/** Each test starts several toolbelt processes one after another (a second or two each). */
const SLOW = 90_000

const made: string[] = []
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function tempDir(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  made.push(dir)
  return dir
}

async function writeUserConfig(home: string, config: object): Promise<void> {
  await mkdir(join(home, ".config", "toolbelt"), { recursive: true })
  await writeFile(join(home, ".config", "toolbelt", "toolbelt.json"), JSON.stringify(config))
}

/** How one process is told the store: extra arguments, extra environment. */
interface Naming {
  readonly args?: readonly string[]
  readonly env?: NodeJS.ProcessEnv
}

/**
 * `read` and `todowrite` in one session, then `todoread` in it, each in a process with a data dir
 * (home) of its own: the last one sees the list only if every process used the same database. Returns
 * the session and the calls the database holds of it (tool, state).
 */
async function shareOneSession(options: {
  url: string
  /** Sets up a home (its user config) and says how the store is named there. */
  naming: (home: string) => Promise<Naming>
  projectConfig?: object
}) {
  const dir = await tempDir("toolbelt-pg-project-")
  await writeFile(join(dir, "a.txt"), "alpha\n")
  if (options.projectConfig)
    await writeFile(join(dir, "toolbelt.json"), JSON.stringify(options.projectConfig))
  const session = `ses_${Math.random().toString(36).slice(2)}`
  const call = async (tool: string, input: object, extra: string[] = []) => {
    const home = await tempDir("toolbelt-pg-home-")
    const naming = await options.naming(home)
    const out = runCli(
      ["call", tool, JSON.stringify(input), "--session", session, "--json", ...extra, ...(naming.args ?? [])],
      { cwd: dir, home, ...(naming.env ? { env: naming.env } : {}) },
    )
    return { ...out, result: JSON.parse(out.stdout) as { status: string; error?: string } }
  }
  const read = await call("read", { filePath: "a.txt" })
  expect(read.result, read.stderr).toMatchObject({ status: "completed" })
  const write = await call("todowrite", {
    todos: [{ content: "ship it", status: "pending", priority: "high" }],
  })
  expect(write.result, write.stderr).toMatchObject({ status: "completed" })
  const seen = await call("todoread", {})
  expect(seen.result, seen.stderr).toMatchObject({ status: "completed", title: "1 todo" })
  for (const out of [read, write, seen])
    expect(`${out.stdout}${out.stderr}`).not.toContain(pg.server!.password)

  const store = openStore({ url: options.url })
  try {
    return { session, parts: store.parts.list(session).map((part) => [part.tool, part.state.status]) }
  } finally {
    store.close()
  }
}

pg.describe("the store named on the command line, in the environment and in config", () => {
  it(
    "--store: a process sees the session other processes wrote (its todos), as the library does",
    async () => {
      const url = await pg.server!.database()
      const { parts } = await shareOneSession({ url, naming: async () => ({ args: ["--store", url] }) })
      expect(parts).toEqual([
        ["read", "completed"],
        ["todowrite", "completed"],
        ["todoread", "completed"],
      ])
    },
    SLOW,
  )

  it(
    "without a shared store the next process has not seen the session: no todos",
    async () => {
      const dir = await tempDir("toolbelt-pg-project-")
      const [one, two] = [await tempDir("toolbelt-pg-home-"), await tempDir("toolbelt-pg-home-")]
      const args = ["--session", "ses_control", "--json"]
      const todos = '{"todos":[{"content":"ship it","status":"pending","priority":"high"}]}'
      expect(runCli(["call", "todowrite", todos, ...args], { cwd: dir, home: one }).status).toBe(0)
      const seen = runCli(["call", "todoread", "{}", ...args], { cwd: dir, home: two })
      expect(JSON.parse(seen.stdout)).toMatchObject({ status: "completed", title: "0 todos" })
    },
    SLOW,
  )

  it(
    "TOOLBELT_STORE: the same",
    async () => {
      const url = await pg.server!.database()
      const { parts } = await shareOneSession({ url, naming: async () => ({ env: { TOOLBELT_STORE: url } }) })
      expect(parts).toHaveLength(3)
    },
    SLOW,
  )

  it(
    'the user\'s config "store": the same',
    async () => {
      const url = await pg.server!.database()
      const { parts } = await shareOneSession({
        url,
        naming: async (home) => {
          await writeUserConfig(home, { store: url })
          return {}
        },
      })
      expect(parts).toHaveLength(3)
    },
    SLOW,
  )

  it(
    "a trusted project's \"store\": the same; the user's wins over it",
    async () => {
      const url = await pg.server!.database()
      const { parts } = await shareOneSession({
        url,
        projectConfig: { store: url },
        naming: async () => ({ args: ["--trust"] }),
      })
      expect(parts).toHaveLength(3)

      const other = await pg.server!.database()
      const mine = await shareOneSession({
        url: other,
        projectConfig: { store: url },
        naming: async (home) => {
          await writeUserConfig(home, { store: other })
          return { args: ["--trust"] }
        },
      })
      expect(mine.parts).toHaveLength(3)
      const project = openStore({ url })
      try {
        expect(project.parts.list(mine.session)).toEqual([])
      } finally {
        project.close()
      }
    },
    SLOW,
  )

  it(
    "the library: createToolbelt({ store: url }) records there, shown without the password",
    async () => {
      const url = await pg.server!.database()
      const dir = await tempDir("toolbelt-pg-project-")
      const home = await tempDir("toolbelt-pg-home-")
      await writeFile(join(dir, "a.txt"), "alpha\n")
      const toolbelt = await createToolbelt({ directory: dir, env: cliEnv(home), store: url, mcp: false })
      try {
        expect(internals(toolbelt).store.path).toBe(redactStoreUrl(url))
        expect(internals(toolbelt).store.path).not.toContain(pg.server!.password)
        const result = await toolbelt.call({
          tool: "read",
          input: { filePath: "a.txt" },
          sessionID: "ses_lib",
        })
        expect(result.status).toBe("completed")
      } finally {
        await toolbelt.close()
      }
      // Another toolbelt, told by TOOLBELT_STORE, sees it.
      const again = await createToolbelt({
        directory: dir,
        env: cliEnv(await tempDir("toolbelt-pg-home-"), { TOOLBELT_STORE: url }),
        mcp: false,
      })
      try {
        expect(
          internals(again)
            .store.parts.list("ses_lib")
            .map((part) => part.tool),
        ).toEqual(["read"])
      } finally {
        await again.close()
      }
    },
    SLOW,
  )

  it(
    "a wrong password: the call fails naming the store, and neither password is printed",
    async () => {
      const server = pg.server!
      const wrong = server.url.replace(`:${server.password}@`, ":WRONGpassword123@")
      const dir = await tempDir("toolbelt-pg-project-")
      const home = await tempDir("toolbelt-pg-home-")
      for (const extra of [[], ["--json"]]) {
        const out = runCli(["call", "read", '{"filePath":"a.txt"}', "--store", wrong, ...extra], {
          cwd: dir,
          home,
        })
        expect(out.status).toBe(1)
        const printed = `${out.stdout}${out.stderr}`
        expect(out.stderr).toContain(redactStoreUrl(wrong))
        expect(out.stderr).toMatch(/password authentication failed/)
        expect(printed).not.toContain("WRONGpassword123")
        expect(printed).not.toContain(server.password)
      }
    },
    SLOW,
  )

  it(
    "serve --store: its banner names the store without the password; a call from another process shows in its API",
    async () => {
      const url = await pg.server!.database()
      const project = await makeProject()
      cleanups.push(() => project.remove())
      const serve = await startServe(project, ["--store", url])
      cleanups.push(() => serve.stop())
      expect(serve.stderr()).toContain(`  store   ${redactStoreUrl(url)}\n`)
      expect(serve.stderr()).not.toContain(pg.server!.password)

      const created = await api(serve.url, "POST", "/api/sessions", { title: "fleet" })
      expect(created.status).toBe(201)
      const session = created.body.id as string
      const home = await tempDir("toolbelt-pg-home-")
      const out = runCli(["call", "read", '{"filePath":"hello.txt"}', "--session", session, "--store", url], {
        cwd: project.dir,
        home,
      })
      expect(out.status, out.stderr).toBe(0)
      const journal = await api(serve.url, "GET", `/api/sessions/${session}/journal`)
      expect(journal.status).toBe(200)
      expect(JSON.stringify(journal.body)).toContain('"read"')
      expect(await serve.stop()).toBe(0)
      expect(serve.stderr()).not.toContain(pg.server!.password)
    },
    SLOW,
  )
})
