// What the servers say about an untrusted project: the MCP server's instructions (the real MCP client
// over stdio), and the trust object of serve's /api/info that the page's banner shows.
import { existsSync } from "node:fs"
import { chromium } from "playwright-core"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { connectStdio } from "../mcp/helpers.ts"
import { startServe } from "../serve/helpers.ts"
import { type TrustProject, trustProject } from "./project.ts"

const CHROMIUM = process.env.TOOLBELT_CHROMIUM ?? "/usr/bin/chromium"

let project: TrustProject

beforeEach(async () => {
  project = await trustProject()
})

afterEach(async () => {
  await project.remove()
})

describe("toolbelt mcp", () => {
  it("tells the client what was left out and the trust command; the tool is not listed", async () => {
    const mcp = await connectStdio(project)
    try {
      const instructions = mcp.client.getInstructions() ?? ""
      expect(instructions).toContain("is not trusted")
      expect(instructions).toContain("tool file .toolbelt/tools/hello.ts")
      expect(instructions).toContain(`toolbelt trust ${project.dir}`)
      const { tools } = await mcp.client.listTools()
      expect(tools.map((tool) => tool.name)).not.toContain("hello")
      expect(mcp.stderr()).toContain(`toolbelt trust ${project.dir}`)
    } finally {
      await mcp.close()
    }
  })

  it("with --trust, lists the tool, says so on stderr, and the instructions say nothing of trust", async () => {
    const mcp = await connectStdio(project, { args: ["--trust"] })
    try {
      expect(mcp.client.getInstructions()).not.toContain("not trusted")
      const { tools } = await mcp.client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("hello")
      expect(mcp.stderr()).toContain("WARNING")
      expect(mcp.stderr()).toContain("--trust")
    } finally {
      await mcp.close()
    }
  })
})

describe("toolbelt serve", () => {
  it("/api/info carries what was left out and the trust command", async () => {
    const serve = await startServe({
      ...project,
      env: { ...project.env, TOOLBELT_SERVE_TOKEN: "trust-test" },
    })
    try {
      const response = await fetch(`${serve.url}/api/info`, {
        headers: { authorization: "Bearer trust-test" },
      })
      expect(response.status).toBe(200)
      const info = (await response.json()) as { trust: unknown }
      expect(info.trust).toEqual({
        trusted: false,
        reason: "untrusted",
        leftOut: [expect.objectContaining({ kind: "tool-file", file: project.toolFile })],
        howToTrust: `toolbelt trust ${project.dir}`,
      })
    } finally {
      await serve.stop()
    }
  })
})

describe.skipIf(!existsSync(CHROMIUM))("the page of toolbelt serve", () => {
  it("shows a banner with what was left out and the trust command; none once trusted for the run", async () => {
    const env = { ...project.env, TOOLBELT_SERVE_TOKEN: "trust-page" }
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
    try {
      const untrusted = await startServe({ ...project, env })
      try {
        const page = await browser.newPage()
        await page.goto(untrusted.pageURL)
        const banner = page.locator("section.trust-banner")
        await banner.waitFor()
        expect(await banner.textContent()).toContain("This project is not trusted.")
        expect(await banner.locator("code.file").allTextContents()).toEqual([project.toolFile])
        expect(await banner.locator("code.how").textContent()).toBe(`toolbelt trust ${project.dir}`)
      } finally {
        await untrusted.stop()
      }
      const trusted = await startServe({ ...project, env }, ["--trust"])
      try {
        const page = await browser.newPage()
        await page.goto(trusted.pageURL)
        // The project's path and the banner come from the same answer of /api/info.
        await expect.poll(() => page.locator("header .project").textContent()).toBe(project.dir)
        expect(await page.locator("section.trust-banner").count()).toBe(0)
      } finally {
        await trusted.stop()
      }
    } finally {
      await browser.close()
    }
  })
})
