import { describe, expect, it } from "vitest"
import { detectPrompt, promptAdvice } from "./prompt.ts"

describe("detectPrompt", () => {
  const prompts: [string, string][] = [
    ["Continue? ", "Continue? "],
    ["Do you want to continue? [Y/n] ", "Do you want to continue? [Y/n] "],
    ["Overwrite file.txt? (y/N)", "Overwrite file.txt? (y/N)"],
    [
      "Are you sure you want to continue connecting (yes/no/[fingerprint])? ",
      "Are you sure you want to continue connecting (yes/no/[fingerprint])? ",
    ],
    ["[sudo] password for bob: ", "[sudo] password for bob: "],
    [
      "Enter passphrase for key '/home/bob/.ssh/id_ed25519': ",
      "Enter passphrase for key '/home/bob/.ssh/id_ed25519': ",
    ],
    ["Password:", "Password:"],
    ["Username for 'https://github.com': ", "Username for 'https://github.com': "],
    ["Press any key to continue . . .", "Press any key to continue . . ."],
    ["Press ENTER to continue\n", "Press ENTER to continue"],
    ["installing...\nProceed (y/n)? ", "Proceed (y/n)? "],
    ["Need to install the following packages:\ncreate-vite@5\nOk to proceed? (y) ", "Ok to proceed? (y) "],
    ["Project name: ", "Project name: "],
    ["Select a framework:\n> ", "> "],
    ["\u001b[1mContinue?\u001b[0m ", "Continue? "],
    ["Do you want to proceed?\n", "Do you want to proceed?"],
  ]
  it.each(prompts)("sees a prompt in %j", (tail, prompt) => {
    expect(detectPrompt(tail)).toBe(prompt)
  })

  const notPrompts = [
    "",
    "\n\n",
    "Compiling...",
    "Building 45%",
    "done\n",
    "What is this?\nIt is a test.\n", // a finished question that is not the last line
    "Why did it fail?\n", // a finished line ending in ? that is not an outright question
    "Step 1: install\n",
    "Downloading https://example.com/file.tar.gz\n",
  ]
  it.each(notPrompts)("sees no prompt in %j", (tail) => {
    expect(detectPrompt(tail)).toBeUndefined()
  })
})

describe("promptAdvice", () => {
  it("names the prompt, the silence and the non-interactive ways out", () => {
    const text = promptAdvice("Continue? [y/N] ", 3000)
    expect(text).toContain('no output for 3 s after the prompt "Continue? [y/N]"')
    expect(text).toContain("--yes")
    expect(text).toContain("`yes | cmd`")
    expect(text).toContain("< /dev/null")
  })
})
