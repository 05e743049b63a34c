import { describe, expect, it } from "vitest"
import { customToolDirectories } from "./custom-tools.ts"

describe("customToolDirectories", () => {
  it("lists the global dirs, then TOOLBELT_CONFIG_DIR, then the project's from the worktree down", () => {
    expect(
      customToolDirectories({
        directory: "/repo/packages/app",
        worktree: "/repo",
        env: { HOME: "/home/u", XDG_CONFIG_HOME: "/xdg", TOOLBELT_CONFIG_DIR: "/cfg" },
      }),
    ).toEqual([
      "/home/u/.config/opencode",
      "/xdg/opencode",
      "/home/u/.config/toolbelt",
      "/xdg/toolbelt",
      "/cfg",
      "/repo/.opencode",
      "/repo/.toolbelt",
      "/repo/packages/.opencode",
      "/repo/packages/.toolbelt",
      "/repo/packages/app/.opencode",
      "/repo/packages/app/.toolbelt",
    ])
  })

  it("lists each directory once, and only the project when it is outside the worktree", () => {
    expect(
      customToolDirectories({
        directory: "/elsewhere/app",
        worktree: "/repo",
        env: { HOME: "/home/u", XDG_CONFIG_HOME: "/home/u/.config" },
      }),
    ).toEqual([
      "/home/u/.config/opencode",
      "/home/u/.config/toolbelt",
      "/elsewhere/app/.opencode",
      "/elsewhere/app/.toolbelt",
    ])
  })
})
