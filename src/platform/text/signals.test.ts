import { describe, expect, it } from "vitest"
import { findSignals, SIGNAL_CAPS } from "./signals.ts"

function signalsOf(lines: string[], firstLine = 1) {
  const text = lines.join("\n")
  return findSignals(text, { start: 0, end: text.length, firstLine })
}

describe("findSignals", () => {
  it.each([
    "Error: boom",
    "TypeError: x is not a function",
    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal",
    'Exception in thread "main" java.lang.RuntimeException: nope',
    "Caused by: java.io.IOException: disk gone",
    "src/a.c:3:5: error: expected ';' before '}' token",
    "error[E0308]: mismatched types",
    'error: could not compile `demo` (bin "demo") due to 1 previous error',
    "src/x.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'.",
    "FAIL src/x.test.ts > adds",
    "FAILED tests/test_a.py::test_b - assert 1 == 2",
    "--- FAIL: TestParse (0.00s)",
    "BUILD FAILURE",
    "panic: runtime error: index out of range [3] with length 3",
    "thread 'main' panicked at src/main.rs:2:5:",
    "Traceback (most recent call last):",
    "ValueError: invalid literal for int() with base 10: 'x'",
    "npm ERR! code ELIFECYCLE",
    "fatal: not a git repository (or any of the parent directories): .git",
    "Tests:       1 failed, 3 passed, 4 total",
    "Test Suites: 1 failed, 1 total",
    "      Tests  1 failed | 3 passed (4)",
    "test result: FAILED. 1 passed; 1 failed; 0 ignored",
    "  3 passing (12ms)",
    "  1 failing",
    "========== 1 failed, 2 passed in 0.12s ==========",
    "  ✗ adds numbers",
    "✖ 2 problems (2 errors, 0 warnings)",
    " × src/x.test.ts > adds 3ms",
    "  ● math › adds",
    "2026-01-01T00:00:00Z ERROR worker-3 lost connection",
  ])("keeps %j", (line) => {
    expect(signalsOf(["ok", line, "ok"])).toEqual([{ line: 2, text: line }])
  })

  it("sees words behind ANSI colour codes and shows the line without them", () => {
    const colored = "\u001b[31mFAIL\u001b[39m src/colored.test.ts"
    expect(signalsOf(["ok", colored])).toEqual([{ line: 2, text: "FAIL src/colored.test.ts" }])
  })

  it.each([
    "    at Object.<anonymous> (/src/Error.test.ts:3:9)",
    "    at new ValidationError: (/src/errors.ts:1:1)",
    '  File "/src/error.py", line 3, in <module>',
    "\t/usr/lib/go/src/runtime/panic.go:1038 +0x215",
    "panic({0x4b0b20, 0xc000012345})",
    "no errors found",
    "0 errors, 0 warnings",
    "errorHandler: registered",
    "FAILOVER enabled",
    "the test passed",
    "Testing library loaded",
    "panic_handler installed",
    "processed 12 requests in 3ms",
  ])("skips %j", (line) => {
    expect(signalsOf(["ok", line, "ok"])).toEqual([])
  })

  it("numbers lines from the region's first line", () => {
    const text = "preview\nkept\nFAIL a\nok\nok\nTests: 1 failed"
    const start = text.indexOf("FAIL")
    expect(findSignals(text, { start, end: text.length, firstLine: 3 })).toEqual([
      { line: 3, text: "FAIL a" },
      { line: 6, text: "Tests: 1 failed" },
    ])
  })

  it("ignores matches outside the region", () => {
    const text = "Error: before\nok\nok\nError: after"
    const end = text.lastIndexOf("\n")
    expect(findSignals(text, { start: text.indexOf("ok"), end, firstLine: 2 })).toEqual([])
  })

  it("keeps the last 20 matches, in file order, when there are more", () => {
    const lines = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? `Error: number ${i}` : "noise"))
    const signals = signalsOf(lines)
    expect(signals).toHaveLength(SIGNAL_CAPS.maxLines)
    expect(signals[0]).toEqual({ line: 61, text: "Error: number 60" })
    expect(signals.at(-1)).toEqual({ line: 99, text: "Error: number 98" })
    expect(signals.map((s) => s.line)).toEqual([...signals.map((s) => s.line)].sort((a, b) => a - b))
  })

  it("keeps about 4 KB of signal text, the latest lines first", () => {
    const lines = Array.from(
      { length: 30 },
      (_, i) => `Error: ${String(i).padStart(2, "0")} ${"x".repeat(280)}`,
    )
    const signals = signalsOf(lines)
    const bytes = signals.reduce((sum, s) => sum + Buffer.byteLength(s.text), 0)
    expect(bytes).toBeLessThanOrEqual(SIGNAL_CAPS.maxBytes)
    expect(signals.length).toBe(Math.floor(SIGNAL_CAPS.maxBytes / Buffer.byteLength(lines[0]!)))
    expect(signals.at(-1)!.line).toBe(30)
  })

  it("cuts a long signal line at 300 characters, without splitting an emoji", () => {
    const long = `Error: ${"😀".repeat(400)}`
    const [signal] = signalsOf(["ok", long])
    expect(signal!.text.endsWith("…")).toBe(true)
    const body = signal!.text.slice(0, -1)
    expect(body.length).toBeLessThanOrEqual(SIGNAL_CAPS.maxLineChars)
    expect(long.startsWith(body)).toBe(true)
    expect(Buffer.from(body).toString()).toBe(body)
  })

  it("drops a trailing carriage return", () => {
    expect(signalsOf(["ok", "FAIL x\r", "ok"])).toEqual([{ line: 2, text: "FAIL x" }])
  })
})
