import { describe, expect, it } from "vitest"
import { BUILTIN_SERVERS } from "./builtin-servers.ts"
import { serverConfig } from "./lsp-config.ts"

const ids = (section: unknown) => serverConfig(section).servers.map((server) => server.id)
const place = { root: "/nowhere", directory: "/nowhere", env: { PATH: "" } }

describe("serverConfig", () => {
  it.each([
    ["absent: every built-in", undefined, [...BUILTIN_SERVERS.keys()]],
    ["true: every built-in", true, [...BUILTIN_SERVERS.keys()]],
    ["false: none", false, []],
  ])("%s", (_, section, expected) => {
    expect(ids(section)).toEqual(expected)
  })

  it("turns servers off by false or disabled: true", () => {
    const left = ids({ typescript: false, pyright: { disabled: true } })
    expect(left).not.toContain("typescript")
    expect(left).not.toContain("pyright")
    expect(left).toContain("gopls")
  })

  it("adds a server with its command and extensions (dots added, lower case)", () => {
    const { servers, problems } = serverConfig({
      mine: {
        command: ["/bin/sh", "-c", "x"],
        extensions: ["MINE", ".other"],
        env: { A: "1" },
        initialization: { x: 1 },
      },
    })
    expect(problems).toEqual([])
    const mine = servers.find((server) => server.id === "mine")!
    expect(mine.extensions).toEqual([".mine", ".other"])
    expect(mine.env).toEqual({ A: "1" })
    expect(mine.initialization).toEqual({ x: 1 })
    expect(mine.rootMarkers).toEqual([])
    expect(mine.launch(place)).toEqual({ argv: ["/bin/sh", "-c", "x"] })
  })

  it("changes a built-in: command replaced, extensions kept, initialization merged over its own", () => {
    const { servers } = serverConfig({
      typescript: {
        command: ["/bin/true"],
        initialization: { tsserver: { path: "/ts/lib/tsserver.js" }, other: 1 },
      },
    })
    const typescript = servers.find((server) => server.id === "typescript")!
    expect(typescript.extensions).toEqual(BUILTIN_SERVERS.get("typescript")!.extensions)
    expect(typescript.launch(place)).toEqual({ argv: ["/bin/true"] })
    expect(typescript.initialization).toEqual({
      tsserver: { useSyntaxServer: "never", path: "/ts/lib/tsserver.js" },
      other: 1,
    })
  })

  it("says what is wrong with an entry and ignores it", () => {
    const { servers, problems } = serverConfig({
      nocommand: { extensions: [".x"] },
      noext: { command: ["x"] },
      badcommand: { command: [1], extensions: [".x"] },
      badenv: { command: ["x"], extensions: [".x"], env: { A: 1 } },
      badinit: { command: ["x"], extensions: [".x"], initialization: [] },
      badext: { command: ["x"], extensions: ".x" },
      notobject: "yes",
    })
    expect(servers.map((server) => server.id)).toEqual([...BUILTIN_SERVERS.keys()])
    expect(problems).toEqual([
      "lsp.nocommand: a server toolbelt does not know needs a command; it was ignored",
      "lsp.noext: a server toolbelt does not know needs extensions; it was ignored",
      "lsp.badcommand: command must be a list of strings, the program first; it was ignored",
      "lsp.badenv: env must map names to strings; it was ignored",
      "lsp.badinit: initialization must be an object; it was ignored",
      'lsp.badext: extensions must be a list of file extensions (".ts"); it was ignored',
      "lsp.notobject: expected false or an object with command, extensions, env, initialization; it was ignored",
    ])
    expect(serverConfig(["x"]).problems).toEqual([
      '"lsp" must be false or an object of servers by name; it was ignored',
    ])
  })

  it("a configured program that is not installed is missing, not started", () => {
    const { servers } = serverConfig({
      mine: { command: ["no-such-language-server"], extensions: [".mine"] },
    })
    expect(servers.find((server) => server.id === "mine")!.launch(place)).toEqual({
      missing: "no-such-language-server was not found on PATH or in the project's node_modules/.bin",
    })
  })
})
