// `toolbelt serve` as a command: what it prints, its usage errors, and stopping on SIGTERM.
import { spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { anonymous, api, bin, makeProject, type Project, startServe, until } from "./helpers.ts"

let project: Project | undefined
afterEach(async () => {
  await project?.remove()
  project = undefined
})

function run(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env, timeout: 30_000 })
}

describe("toolbelt serve", () => {
  it("prints where the page, the API and MCP are, serves them, and exits 0 on SIGTERM", async () => {
    project = await makeProject()
    const serve = await startServe(project)
    try {
      expect(serve.stderr()).toContain(`toolbelt serve: ${project.dir}`)
      expect(serve.pageURL).toMatch(new RegExp(`^${serve.url}/\\?login=`))
      expect(serve.stderr()).toContain(`${serve.url}/openapi.json`)
      expect(serve.stderr()).toContain(`MCP     ${serve.url}/mcp`)
      expect(serve.stderr()).toMatch(/\n {2}token {3}\S+ \(made up for this run/)
      const info = await api(serve.url, "GET", "/api/info")
      expect(info.body).toMatchObject({ directory: project.dir, auth: true, model: null })
      expect((await fetch(serve.pageURL, { redirect: "manual" })).status).toBe(303)
    } finally {
      expect(await serve.stop()).toBe(0)
    }
  })

  it("warms its call path on a throwaway toolbelt that leaves nothing behind; --no-warm-up skips it", async () => {
    project = await makeProject()
    const temp = join(project.home, "tmp")
    await mkdir(temp)
    const env = { ...project.env, TMPDIR: temp }
    for (const args of [[], ["--no-warm-up"]]) {
      const serve = await startServe({ ...project, env }, args)
      try {
        // No warm-up session in the store the server uses, and its temp directory is gone.
        const sessions = await api(serve.url, "GET", "/api/sessions")
        expect((sessions.body as { title: string }[]).map((session) => session.title)).toEqual(
          args.length === 0 ? [] : ["after"],
        )
        expect(await readdir(temp)).toEqual([])
        const call = await api(serve.url, "POST", "/api/sessions", { title: "after" })
        expect(call.status).toBe(201)
      } finally {
        expect(await serve.stop()).toBe(0)
      }
    }
  })

  it.skipIf(!existsSync(join(bin, "..", "..", "dist", "cli.bundle.cjs")))(
    "from the build, has written its code cache by the time it listens: none is made under load",
    async () => {
      project = await makeProject()
      const serve = await startServe({ ...project, env: { ...project.env, TOOLBELT_RUN: "build" } })
      try {
        const cacheDir = join(project.home, ".cache", "toolbelt", "code-cache")
        const names = await readdir(cacheDir)
        expect(
          names.some((name) => name.startsWith("cli.bundle-core-") && name.endsWith(".serve.v8cache")),
        ).toBe(true)
      } finally {
        expect(await serve.stop()).toBe(0)
      }
    },
  )

  it("stopped while it warms up, cleans up and exits 0 without starting the server", async () => {
    project = await makeProject()
    const temp = join(project.home, "tmp")
    await mkdir(temp)
    const child = spawn(process.execPath, [bin, "serve", "--cwd", project.dir, "--port", "0"], {
      env: { ...project.env, TMPDIR: temp },
      stdio: ["ignore", "ignore", "pipe"],
    })
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    await until(
      async () => (await readdir(temp)).some((name) => name.startsWith("toolbelt-warm-up-")),
      "the warm-up's directory",
    )
    child.kill("SIGTERM")
    expect(await exited).toBe(0)
    expect(await readdir(temp)).toEqual([])
    expect(stderr).not.toContain("toolbelt serve:")
  })

  it("bound beyond loopback, prints the token it made up and the one-time login link", async () => {
    project = await makeProject()
    const serve = await startServe(project, ["--host", "0.0.0.0"])
    try {
      const token = /token\s+(\S+) \(made up/.exec(serve.stderr())?.[1]
      expect(token).toBeTruthy()
      expect(serve.pageURL).toMatch(/\/\?login=/)
      expect((await anonymous(serve.url, "GET", "/api/info")).status).toBe(401)
      expect(
        (await anonymous(serve.url, "GET", "/api/info", undefined, { authorization: `Bearer ${token}` }))
          .status,
      ).toBe(200)
      const login = await fetch(serve.pageURL, { redirect: "manual" })
      expect(login.headers.get("set-cookie")).toContain("HttpOnly")
    } finally {
      await serve.stop()
    }
  })

  it("a token from TOOLBELT_SERVE_TOKEN is required and not printed", async () => {
    project = await makeProject()
    const serve = await startServe({ ...project, env: { ...project.env, TOOLBELT_SERVE_TOKEN: "from-env" } })
    try {
      expect(serve.stderr()).not.toContain("from-env")
      expect(serve.stderr()).not.toMatch(/\n {2}token/)
      expect((await anonymous(serve.url, "GET", "/api/info")).status).toBe(401)
      expect(
        (await anonymous(serve.url, "GET", "/api/info", undefined, { authorization: "Bearer from-env" }))
          .status,
      ).toBe(200)
    } finally {
      await serve.stop()
    }
  })

  it("--open hands the page's address to the system's opener", async () => {
    project = await makeProject()
    const opener = join(project.home, "bin")
    await mkdir(opener)
    const opened = join(project.home, "opened.txt")
    await writeFile(join(opener, "xdg-open"), `#!/bin/sh\necho "$@" > ${opened}\n`, { mode: 0o755 })
    const serve = await startServe(
      // A desktop session: without a display toolbelt does not try an opener at all (it says so instead).
      { ...project, env: { ...project.env, PATH: `${opener}:${project.env.PATH}`, DISPLAY: ":0" } },
      ["--open"],
    )
    try {
      const text = await until(() => readFile(opened, "utf8").catch(() => undefined), "the opener to run")
      expect(text.trim()).toBe(serve.pageURL)
    } finally {
      await serve.stop()
    }
  })

  it("usage errors exit 2 with what to do: a bad port, a port in use, a bad model, an unknown agent, arguments", async () => {
    project = await makeProject()
    const { env, dir } = project
    const badPort = run(["serve", "--cwd", dir, "--port", "http"], env)
    expect(badPort.status).toBe(2)
    expect(badPort.stderr).toContain('--port needs a port number from 0 to 65535, not "http"')

    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const inUse = run(["serve", "--cwd", dir, "--port", String(port)], env)
      expect(inUse.status).toBe(2)
      expect(inUse.stderr).toContain(`Port ${port} on 127.0.0.1 is in use`)
      expect(inUse.stderr).toContain("--port 0")
    } finally {
      taken.close()
    }

    const model = run(["serve", "--cwd", dir, "--model", "nonsense"], env)
    expect(model.status).toBe(2)
    expect(model.stderr).toContain("--model must be provider/model-id")
    const baseURL = run(["serve", "--cwd", dir, "--base-url", "http://127.0.0.1:1/v1"], env)
    expect(baseURL.status).toBe(2)
    expect(baseURL.stderr).toContain("--base-url goes with --model")
    const agent = run(["serve", "--cwd", dir, "--port", "0", "--agent", "nobody"], env)
    expect(agent.status).toBe(2)
    expect(agent.stderr).toContain("nobody")
    const extra = run(["serve", "--cwd", dir, "now"], env)
    expect(extra.status).toBe(2)

    const help = run(["serve", "--help"], env)
    expect(help.status).toBe(0)
    expect(help.stdout).toContain("Usage: toolbelt serve")
    expect(run(["--help"], env).stdout).toContain("serve ")
  })

  it('toolbelt mcp with "mcp.ask": "web" says it has no page and rejects what it cannot show', async () => {
    project = await makeProject({ mcp: { ask: "web" } })
    const result = spawnSync(process.execPath, [bin, "mcp", "--cwd", project.dir], {
      encoding: "utf8",
      // The project's "mcp" settings apply once it is trusted.
      env: { ...project.env, TOOLBELT_TRUST: "1" },
      input: "",
      timeout: 30_000,
    })
    expect(result.stderr).toContain('"mcp.ask" is "web"')
    expect(result.stderr).toContain("this server has no page")
  })
})
