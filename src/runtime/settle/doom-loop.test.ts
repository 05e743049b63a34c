import { describe, expect, it } from "vitest"
import {
  type Answered,
  answerOf,
  type Call,
  callKey,
  canonicalJson,
  type DoomLoop,
  DoomLoopGuard,
  type DoomLoopOptions,
  describeDoomLoop,
  detectDoomLoop,
  doomLoopAsk,
  recordOf,
} from "./doom-loop.ts"
import { digestedTexts } from "./noise.ts"
import { inputIdentity, MAX_PLAIN_KEY_CHARS } from "./recorded-call.ts"

// Shorthand calls: A, B, C are distinct calls (different tools), a2 the same tool as A with other input.
// Each answers the same every time, unless a test says otherwise.
const A: Answered = { tool: "read", input: { filePath: "/a.ts" }, answer: "1: a" }
const B: Answered = { tool: "grep", input: { pattern: "foo" }, answer: "Found 1 match" }
const C: Answered = { tool: "bash", input: { command: "npm test" }, answer: "1 failed" }
const a2: Answered = { tool: "read", input: { filePath: "/b.ts" }, answer: "1: b" }

/** A list of calls from a compact string: "ABAB" → [A, B, A, B]. */
const seq = (text: string): Answered[] =>
  [...text].map((letter) => ({ A, B, C, a: a2 })[letter as "A" | "B" | "C" | "a"] as Answered)

/** The same call with another answer each time (its target changed in between). */
const changing = (call: Call, count: number): Answered[] =>
  Array.from({ length: count }, (_, i) => ({ ...call, answer: `version ${i}` }))

interface Case {
  readonly name: string
  /** The history followed by the next call (its last letter). */
  readonly calls: string
  readonly options?: DoomLoopOptions
  readonly expected: DoomLoop | undefined
}

const cases: Case[] = [
  // Repeats.
  { name: "3 identical calls", calls: "AAA", expected: { kind: "repeat", tool: "read", count: 3 } },
  { name: "2 identical calls are not enough", calls: "AA", expected: undefined },
  { name: "the repeat must be in a row", calls: "AABA", expected: undefined },
  {
    name: "a longer run counts all of it",
    calls: "BAAAAA",
    expected: { kind: "repeat", tool: "read", count: 5 },
  },
  { name: "same tool, different inputs", calls: "AaA", expected: undefined },
  { name: "same tool, alternating inputs twice is a near miss", calls: "AaAa", expected: undefined },
  { name: "a single call", calls: "A", expected: undefined },
  // Cycles.
  {
    name: "A,B ×3",
    calls: "ABABAB",
    expected: { kind: "cycle", tools: ["read", "grep"], length: 2, repeats: 3 },
  },
  {
    name: "A,B,C ×3",
    calls: "ABCABCABC",
    expected: { kind: "cycle", tools: ["read", "grep", "bash"], length: 3, repeats: 3 },
  },
  {
    name: "a cycle of one tool with two inputs",
    calls: "AaAaAa",
    expected: { kind: "cycle", tools: ["read", "read"], length: 2, repeats: 3 },
  },
  {
    name: "a cycle after unrelated calls",
    calls: "CCABABABAB",
    expected: { kind: "cycle", tools: ["read", "grep"], length: 2, repeats: 4 },
  },
  {
    name: "a cycle's period ends with the next call",
    calls: "BABABA",
    expected: { kind: "cycle", tools: ["grep", "read"], length: 2, repeats: 3 },
  },
  {
    name: "A,A,B ×3 is a cycle of length 3",
    calls: "AABAABAAB",
    expected: { kind: "cycle", tools: ["read", "read", "grep"], length: 3, repeats: 3 },
  },
  { name: "A,B ×2 and a half", calls: "ABABA", expected: undefined },
  { name: "A,B,A,B,A,C breaks the cycle", calls: "ABABAC", expected: undefined },
  { name: "A,B,C ×2 and two thirds", calls: "ABCABCAB", expected: undefined },
  { name: "A,B,C,A,C,B,A,B,C", calls: "ABCACBABC", expected: undefined },
  { name: "A,B,A,C,A,B is not periodic", calls: "ABACAB", expected: undefined },
  {
    name: "length 4 cycles are not looked for by default",
    calls: "ABCaABCaABCa",
    expected: undefined,
  },
  {
    name: "length 4 cycles with maxCycle 4",
    calls: "ABCaABCaABCa",
    options: { maxCycle: 4 },
    expected: { kind: "cycle", tools: ["read", "grep", "bash", "read"], length: 4, repeats: 3 },
  },
  {
    name: "maxCycle 1 looks for repeats only",
    calls: "ABABAB",
    options: { maxCycle: 1 },
    expected: undefined,
  },
  // Thresholds.
  {
    name: "threshold 2: two identical calls",
    calls: "AA",
    options: { threshold: 2 },
    expected: { kind: "repeat", tool: "read", count: 2 },
  },
  {
    name: "threshold 2: A,B,A,B",
    calls: "ABAB",
    options: { threshold: 2 },
    expected: { kind: "cycle", tools: ["read", "grep"], length: 2, repeats: 2 },
  },
  {
    name: "threshold 5: 4 identical calls are fine",
    calls: "AAAA",
    options: { threshold: 5 },
    expected: undefined,
  },
  {
    name: "threshold 5: 5 identical calls",
    calls: "AAAAA",
    options: { threshold: 5 },
    expected: { kind: "repeat", tool: "read", count: 5 },
  },
  { name: "threshold 5: A,B ×4", calls: "ABABABAB", options: { threshold: 5 }, expected: undefined },
  {
    name: "threshold 5: A,B ×5",
    calls: "ABABABABAB",
    options: { threshold: 5 },
    expected: { kind: "cycle", tools: ["read", "grep"], length: 2, repeats: 5 },
  },
]

describe("detectDoomLoop", () => {
  it.each(cases)("$name", ({ calls, options, expected }) => {
    const all = seq(calls)
    const next = all.pop()!
    expect(detectDoomLoop(all, next, options)).toEqual(expected)
  })

  it("ignores object key order (and undefined fields) when comparing inputs", () => {
    const history: Answered[] = [
      { tool: "grep", input: { pattern: "x", path: "src", options: { i: true, n: 1 } }, answer: "x" },
      { tool: "grep", input: { options: { n: 1, i: true }, path: "src", pattern: "x" }, answer: "x" },
    ]
    const next: Call = {
      tool: "grep",
      input: { path: "src", pattern: "x", extra: undefined, options: { i: true, n: 1 } },
    }
    expect(detectDoomLoop(history, next)).toEqual({ kind: "repeat", tool: "grep", count: 3 })
  })

  it("distinguishes array order and value types", () => {
    const history: Answered[] = [
      { tool: "t", input: { list: [1, 2] }, answer: "" },
      { tool: "t", input: { list: [2, 1] }, answer: "" },
    ]
    expect(detectDoomLoop(history, { tool: "t", input: { list: [1, 2] } })).toBeUndefined()
    expect(
      detectDoomLoop(
        [
          { tool: "t", input: 1, answer: "" },
          { tool: "t", input: "1", answer: "" },
        ],
        { tool: "t", input: 1 },
      ),
    ).toBeUndefined()
  })

  it("the same input to different tools is not a repeat", () => {
    const input = { path: "." }
    const history: Answered[] = [
      { tool: "glob", input, answer: "" },
      { tool: "list", input, answer: "" },
    ]
    expect(detectDoomLoop(history, { tool: "glob", input })).toBeUndefined()
  })

  it("measures the whole run in a long history", () => {
    expect(detectDoomLoop([...seq("ABC".repeat(100)), ...seq("AA")], A)).toEqual(REPEAT_3)
    const cycle = seq("ABC".repeat(20))
    const next = cycle.pop()!
    expect(detectDoomLoop(cycle, next)).toEqual({
      kind: "cycle",
      tools: ["read", "grep", "bash"],
      length: 3,
      repeats: 20,
    })
  })

  it("rejects a threshold below 2 and invalid cycle lengths", () => {
    expect(() => detectDoomLoop([], A, { threshold: 1 })).toThrow(RangeError)
    expect(() => detectDoomLoop([], A, { threshold: 2.5 })).toThrow(RangeError)
    expect(() => detectDoomLoop([], A, { maxCycle: -1 })).toThrow(RangeError)
  })
})

describe("a loop is the same call getting the same answer", () => {
  it("a call whose answer changed each time is never a loop, however often it is made", () => {
    const history = changing(A, 200)
    expect(detectDoomLoop(history, A)).toBeUndefined()
  })

  it("counts from the last change: the run of equal answers decides", () => {
    // Changed, then the same twice: the third identical call would get the same answer again.
    const history: Answered[] = [...changing(A, 5), A, A]
    expect(detectDoomLoop(history, A)).toEqual({ kind: "repeat", tool: "read", count: 3 })
    expect(detectDoomLoop([...changing(A, 5), A], A)).toBeUndefined()
  })

  it("a poll never counts and breaks the run it is in", () => {
    const poll: Answered = { ...A, poll: true }
    expect(detectDoomLoop([poll, poll, poll, poll], A)).toBeUndefined()
    expect(detectDoomLoop([A, poll], A)).toBeUndefined()
    expect(detectDoomLoop([poll, A, A], A)).toEqual({ kind: "repeat", tool: "read", count: 3 })
    expect(detectDoomLoop([A, { ...B, poll: true }, A, B, A, B], A)).toBeUndefined()
  })

  it("A,B cycles count only with the same answers", () => {
    expect(detectDoomLoop(seq("ABABA"), B)).toEqual({
      kind: "cycle",
      tools: ["read", "grep"],
      length: 2,
      repeats: 3,
    })
    // B's answer changed in the middle: the cycle so far is only A,B once and a half.
    const moved: Answered[] = [A, B, A, { ...B, answer: "Found 2 matches" }, A]
    expect(detectDoomLoop(moved, B)).toBeUndefined()
  })

  it("keys answers by digest: a long answer counts like a short one", () => {
    const big = { ...A, answer: "x".repeat(1_000_000) }
    expect(detectDoomLoop([big, big], big)).toEqual({ kind: "repeat", tool: "read", count: 3 })
  })
})

describe("answerOf", () => {
  const time = { start: 1, end: 2 }
  it("is the output and attachments of a completed call, or the error of a failed one", () => {
    const done = answerOf({ status: "completed", input: {}, output: "ok", title: "", metadata: {}, time })
    const failed = answerOf({ status: "error", input: {}, error: "ok", time })
    expect(done).toBeDefined()
    expect(failed).toBeDefined()
    expect(done).not.toBe(failed)
  })

  it("is nothing for an interruption or a refused loop: neither is an answer", () => {
    expect(
      answerOf({ status: "error", input: {}, error: "x", metadata: { interrupted: true }, time }),
    ).toBeUndefined()
    expect(
      answerOf({ status: "error", input: {}, error: "x", metadata: { doomLoop: true }, time }),
    ).toBeUndefined()
    expect(answerOf({ status: "running", input: {}, time: { start: 1 } })).toBeUndefined()
  })
})

describe("canonicalJson", () => {
  it.each([
    [{ b: 1, a: [3, { d: 1, c: 2 }] }, '{"a":[3,{"c":2,"d":1}],"b":1}'],
    [{ a: undefined, b: () => 1 }, "{}"],
    [[undefined, Number.NaN, Number.POSITIVE_INFINITY], "[null,null,null]"],
    [new Date(0), '"1970-01-01T00:00:00.000Z"'],
    [10n, '"10"'],
    ["x", '"x"'],
    [undefined, "null"],
    [null, "null"],
  ])("canonicalJson(%#) → %s", (value, expected) => {
    expect(canonicalJson(value)).toBe(expected)
  })

  it("survives cycles", () => {
    const loop: Record<string, unknown> = { a: 1 }
    loop.self = loop
    expect(canonicalJson(loop)).toBe('{"a":1,"self":"[Circular]"}')
  })

  it("keys a call by tool and input", () => {
    expect(callKey({ tool: "read", input: { b: 1, a: 2 } })).toBe(
      callKey({ tool: "read", input: { a: 2, b: 1 } }),
    )
    expect(callKey({ tool: "read", input: {} })).not.toBe(callKey({ tool: "glob", input: {} }))
  })
})

/** What a third same call of `A` (or of another read) is found to be. */
const REPEAT_3 = { kind: "repeat", tool: "read", count: 3 }

describe("DoomLoopGuard", () => {
  it("200 reads of an unchanged file: refused from the threshold on; a file changed between reads never", () => {
    const guard = new DoomLoopGuard()
    let refused = 0
    for (let i = 0; i < 200; i++) {
      // A refused call is not recorded: refusing changes nothing, so the next one is refused too.
      if (guard.check("same", A)) refused++
      else guard.record("same", A)
    }
    expect(refused).toBe(198)
    let changedRefused = 0
    for (let i = 0; i < 200; i++) {
      if (guard.check("changed", A)) changedRefused++
      else guard.record("changed", { ...A, answer: `content ${i}` })
    }
    expect(changedRefused).toBe(0)
  })

  it("judges calls running side by side in the order they were made, not the order they finished", () => {
    const guard = new DoomLoopGuard()
    const a = { tool: "read", input: { filePath: "a.ts" } }
    const b = { tool: "read", input: { filePath: "b.ts" } }
    // Made a, b, a, b, a: no two calls of one input in a row.
    const [t0, t1, t2, t3, t4] = ["c0", "c1", "c2", "c3", "c4"].map((id) =>
      guard.begin("ses", id),
    ) as number[]
    guard.record("ses", { ...a, answer: "A" }, t0)
    guard.record("ses", { ...a, answer: "A" }, t2)
    // Both a's finished first, while the b's made between them still run: the last a repeats nothing.
    expect(guard.check("ses", a, t4)).toBeUndefined()
    expect(guard.checkRecorded("ses", recordOf({ ...a, answer: "A" }), t4)).toBeUndefined()
    // Kept in the order made, whatever order they finished in.
    guard.record("ses", { ...b, answer: "B" }, t3)
    guard.record("ses", { ...b, answer: "B" }, t1)
    expect(guard.history("ses").map((call) => call.input)).toEqual([a, b, a, b].map(callKey))
    expect(guard.check("ses", a, t4)).toBeUndefined()
    // Made one after another, the same call is a loop as before.
    guard.record("ses", { ...a, answer: "A" }, t4)
    guard.record("ses", { ...a, answer: "A" }, guard.begin("ses", "c5"))
    expect(guard.check("ses", a, guard.begin("ses", "c6"))).toEqual(REPEAT_3)
  })

  it("a call made on behalf of a running one (a batch's child) is judged past its parent", () => {
    const guard = new DoomLoopGuard()
    guard.record("ses", A)
    guard.record("ses", A)
    guard.begin("ses", "batch")
    const child = guard.begin("ses", "batch#1")
    expect(guard.check("ses", A, child, "batch")).toEqual(REPEAT_3)
    // Any other call still running between them breaks the run.
    expect(guard.check("ses", A, child)).toBeUndefined()
  })

  it("a call that leaves no answer (refused, interrupted) gives back its place", () => {
    const guard = new DoomLoopGuard()
    guard.record("ses", A)
    guard.record("ses", A)
    guard.end("ses", guard.begin("ses", "refused"))
    expect(guard.check("ses", A, guard.begin("ses", "next"))).toEqual(REPEAT_3)
  })

  it("detects repeats across messages and turns: history is per session, not per message", () => {
    const guard = new DoomLoopGuard()
    // Message 1 ends with a call; message 2 repeats it; message 3 would be the third time.
    guard.record("ses_1", A)
    guard.record("ses_1", A)
    expect(guard.check("ses_1", A)).toEqual({ kind: "repeat", tool: "read", count: 3 })
    // Checking does not record.
    expect(guard.history("ses_1").map((call) => call.tool)).toEqual(["read", "read"])
    // A short input is remembered as its key; the answer by digest only: the record's key is the input,
    // a NUL, and the answer's 43-character digest.
    const [first] = guard.history("ses_1")
    expect(first?.tool).toBe("read")
    expect(first?.input).toBe(callKey(A))
    expect(first?.key?.startsWith(`${callKey(A)}\u0000`)).toBe(true)
    expect(first?.key?.slice(callKey(A).length + 1)).toMatch(/^[\w-]{43}$/)
  })

  it("remembers a long input by digest, and still finds its repeats", () => {
    const guard = new DoomLoopGuard()
    const long: Answered = { tool: "write", input: { content: "x".repeat(10_000) }, answer: "ok" }
    expect(callKey(long).length).toBeGreaterThan(MAX_PLAIN_KEY_CHARS)
    guard.record("ses_long", long)
    guard.record("ses_long", long)
    expect(guard.history("ses_long")[0]?.input).toMatch(/^[\w-]{43}$/)
    expect(guard.check("ses_long", long)).toEqual({ kind: "repeat", tool: "write", count: 3 })
    // One character more is another call.
    expect(guard.check("ses_long", { ...long, input: { content: "x".repeat(10_001) } })).toBeUndefined()
  })

  it("a kept key never equals a digest: the key has a NUL, a digest none", () => {
    const atLimit = `read\u0000${"a".repeat(MAX_PLAIN_KEY_CHARS - 5)}`
    expect(inputIdentity(atLimit)).toBe(atLimit)
    expect(inputIdentity(`${atLimit}b`)).toMatch(/^[\w-]{43}$/)
    expect(inputIdentity(`${atLimit}b`)).not.toContain("\u0000")
  })

  it("detects A,B,A,B,A,B across calls recorded one by one", () => {
    const guard = new DoomLoopGuard()
    const found: (DoomLoop | undefined)[] = []
    for (const call of seq("ABABAB")) {
      found.push(guard.check("s", call))
      guard.record("s", call)
    }
    expect(found.slice(0, 5)).toEqual([undefined, undefined, undefined, undefined, undefined])
    expect(found[5]).toEqual({ kind: "cycle", tools: ["read", "grep"], length: 2, repeats: 3 })
  })

  it("ignores key order in recorded inputs too", () => {
    const guard = new DoomLoopGuard()
    guard.record("s", { tool: "grep", input: { pattern: "x", path: "src" }, answer: "x" })
    guard.record("s", { tool: "grep", input: { path: "src", pattern: "x" }, answer: "x" })
    expect(guard.check("s", { tool: "grep", input: { pattern: "x", path: "src" } })).toMatchObject({
      kind: "repeat",
      count: 3,
    })
  })

  it("keeps sessions apart", () => {
    const guard = new DoomLoopGuard()
    guard.record("s1", A)
    guard.record("s2", A)
    guard.record("s1", A)
    expect(guard.check("s2", A)).toBeUndefined()
    expect(guard.check("s1", A)).toMatchObject({ kind: "repeat" })
  })

  it("bounds each session's history, never below what detection needs", () => {
    const guard = new DoomLoopGuard({ historySize: 4 })
    expect(guard.historySize).toBe(8) // cycles of 3, 3 times: 8 previous calls
    for (const call of seq("CCCCCCCCCCABCABCAB")) guard.record("s", call)
    expect(guard.history("s")).toHaveLength(8)
    expect(guard.check("s", C)).toEqual({
      kind: "cycle",
      tools: ["read", "grep", "bash"],
      length: 3,
      repeats: 3,
    })
    expect(new DoomLoopGuard().historySize).toBe(50)
  })

  it("honours a configured threshold", () => {
    const guard = new DoomLoopGuard({ threshold: 5 })
    for (let i = 0; i < 3; i++) guard.record("s", A)
    expect(guard.check("s", A)).toBeUndefined()
    guard.record("s", A)
    expect(guard.check("s", A)).toEqual({ kind: "repeat", tool: "read", count: 5 })
    const strict = new DoomLoopGuard({ threshold: 2 })
    strict.record("s", A)
    expect(strict.check("s", A)).toEqual({ kind: "repeat", tool: "read", count: 2 })
  })

  it("forgets a session, and the least recently active one beyond maxSessions", () => {
    const guard = new DoomLoopGuard({ maxSessions: 2 })
    guard.record("s1", A)
    guard.record("s2", A)
    guard.record("s1", A) // s1 is now the most recent
    guard.record("s3", A) // evicts s2
    expect(guard.history("s2")).toEqual([])
    expect(guard.history("s1")).toHaveLength(2)
    guard.forget("s1")
    expect(guard.history("s1")).toEqual([])
  })

  it("rejects invalid options", () => {
    expect(() => new DoomLoopGuard({ threshold: 0 })).toThrow(RangeError)
    expect(() => new DoomLoopGuard({ historySize: -1 })).toThrow(RangeError)
    expect(() => new DoomLoopGuard({ maxSessions: 0 })).toThrow(RangeError)
  })
})

describe("doomLoopAsk", () => {
  it("asks doom_loop for the repeated tool", () => {
    const loop: DoomLoop = { kind: "repeat", tool: "read", count: 3 }
    expect(doomLoopAsk(loop, A)).toEqual({
      permission: "doom_loop",
      patterns: ["read"],
      always: ["read"],
      metadata: {
        kind: "repeat",
        tool: "read",
        count: 3,
        summary:
          "read was called 3 times in a row with the same input, and each earlier call got the same result",
        input: A.input,
      },
    })
  })

  it("asks for each distinct tool of a cycle", () => {
    const loop: DoomLoop = { kind: "cycle", tools: ["read", "grep", "read"], length: 3, repeats: 3 }
    const request = doomLoopAsk(loop, A)
    expect(request.patterns).toEqual(["read", "grep"])
    expect(request.always).toEqual(["read", "grep"])
    expect(describeDoomLoop(loop)).toBe(
      "The same 3 calls (read, grep, read) were repeated 3 times in a row with the same results",
    )
  })
})

describe("answers keyed when compared", () => {
  /** A small random generator, so a failing sequence can be replayed from its seed. */
  const random = (seed: number) => () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return seed / 2 ** 31
  }
  const inputs = [{ filePath: "/a.ts" }, { filePath: "/b.ts" }, { pattern: "x" }, { command: "ls" }]

  it("find what keying every answer at once finds, counts included, over random sessions", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed)
      const options = { threshold: 2 + Math.floor(next() * 3), maxCycle: Math.floor(next() * 4) }
      const guard = new DoomLoopGuard({ ...options, historySize: 12 })
      const answered: Answered[] = []
      for (let step = 0; step < 60; step++) {
        const which = Math.floor(next() * (1 + next() * inputs.length))
        const call: Answered = {
          tool: which === 2 ? "grep" : "read",
          input: inputs[which]!,
          // Mostly the same answer, sometimes a changed one, now and then a poll.
          answer: next() < 0.8 ? `answer ${which}` : `answer ${which} changed ${step}`,
          ...(next() < 0.05 ? { poll: true } : {}),
        }
        const history = answered.slice(-guard.historySize)
        const where = `seed ${seed} step ${step}`
        // As the runner meets calls: one that changes things before it runs, a read once it answered;
        // or a history replayed from the journal, recorded without checks.
        const mode = next()
        if (mode < 0.4) {
          const before = { tool: call.tool, input: call.input }
          expect(guard.check("s", before), where).toEqual(detectDoomLoop(history, before, options))
        } else if (mode < 0.8) {
          const recorded = recordOf(call)
          expect(guard.checkRecorded("s", recorded), where).toEqual(detectDoomLoop(history, call, options))
          guard.record("s", recorded)
          answered.push(call)
          continue
        }
        guard.record("s", call)
        answered.push(call)
      }
    }
  })

  it("key an answer only when a nearby call has its input: reading file after file masks nothing", () => {
    const guard = new DoomLoopGuard()
    const before = digestedTexts()
    for (let i = 0; i < 40; i++) {
      const call = {
        tool: "read",
        input: { filePath: `/f${i}.ts` },
        answer: `page of f${i} ${"x".repeat(5000)}`,
      }
      expect(guard.checkRecorded("s", recordOf(call))).toBeUndefined()
      guard.record("s", call)
    }
    expect(digestedTexts()).toBe(before)
    // A repeated read is keyed (both answers) and found: its answer is the same.
    const again = { tool: "read", input: { filePath: "/f39.ts" }, answer: `page of f39 ${"x".repeat(5000)}` }
    guard.record("s", again)
    expect(guard.check("s", again)).toEqual({ kind: "repeat", tool: "read", count: 3 })
    expect(digestedTexts()).toBeGreaterThan(before)
  })

  it("hold at most a bounded part of the answers unkeyed: a long one is keyed at once", () => {
    const guard = new DoomLoopGuard()
    const before = digestedTexts()
    guard.record("s", { tool: "bash", input: { command: "cat big" }, answer: `log ${"y".repeat(600_000)}` })
    expect(digestedTexts()).toBeGreaterThan(before)
  })
})
