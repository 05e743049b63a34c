// Permission rule evaluation with 1,000 realistic rules (mixed permissions, command and path
// patterns), in µs per evaluation. Goal: under 5 µs. Run: node bench/permission.bench.ts
import { pathToFileURL } from "node:url"
import { agentRules } from "../src/runtime/permission/agents/agent.ts"
import { PermissionEngine } from "../src/runtime/permission/engine.ts"
import { MemoryApprovalStore } from "../src/runtime/permission/memory-approvals.ts"
import type { Action, Rule } from "../src/runtime/permission/rule.ts"
import { evaluate } from "../src/runtime/permission/ruleset.ts"
import { match } from "../src/runtime/permission/wildcard.ts"

const RULES = 1_000
const BATCH = 64
const ROUNDS = 4_000

/** A deterministic ruleset of `count` rules shaped like real configs. */
export function realisticRules(count = RULES): Rule[] {
  const base = agentRules({ dataDir: "/home/me/.local/share/toolbelt", tmpDir: "/tmp" })("build")
  const rules: Rule[] = [...base]
  const commands = [
    "git status",
    "git diff",
    "git log",
    "git push",
    "git commit",
    "git checkout",
    "npm run",
    "npm install",
    "npx",
    "pnpm",
    "yarn",
    "docker compose",
    "docker run",
    "kubectl get",
    "kubectl apply",
    "make",
    "cargo",
    "go test",
    "python -m",
    "pip install",
    "curl",
    "wget",
    "rm -rf",
    "chmod",
    "sudo",
    "ssh",
    "scp",
    "terraform",
  ]
  const actions: Action[] = ["allow", "ask", "deny"]
  let i = 0
  const add = (permission: string, pattern: string) => {
    rules.push({ permission, pattern, action: actions[i % 3]! })
    i++
  }
  while (rules.length < count) {
    const n = i
    const command = commands[n % commands.length]!
    switch (n % 10) {
      case 0:
      case 1:
      case 2:
        add("bash", `${command} target${n} *`)
        break
      case 3:
        add("bash", `${command} *--flag${n}*`)
        break
      case 4:
        add("edit", `packages/pkg${n}/src/*`)
        break
      case 5:
        add("read", `*.secret${n}`)
        break
      case 6:
        add("external_directory", `/home/me/code/project${n}/*`)
        break
      case 7:
        add(`mcp_server${n}_*`, "*")
        break
      case 8:
        add("webfetch", `https://docs.site${n}.example.com/*`)
        break
      default:
        add(n % 20 === 9 ? "*" : "bash", n % 20 === 9 ? `*.tmp${n}` : `*${command} --danger${n}`)
    }
  }
  return rules.slice(0, count)
}

const QUERIES: [permission: string, pattern: string][] = [
  ["bash", "git status target30 --short"],
  ["bash", "git status --short"],
  ["bash", "npm run build"],
  ["bash", "rm -rf node_modules"],
  ["bash", "docker compose up -d && docker compose logs -f --tail 100 web"],
  ["bash", "for f in *.ts; do\n  echo $f\ndone"],
  ["edit", "packages/pkg14/src/index.ts"],
  ["edit", "src/components/button/button.test.tsx"],
  ["read", ".env"],
  ["read", "config/app.secret25"],
  ["external_directory", "/home/me/code/project16/*"],
  ["external_directory", "/etc/*"],
  ["mcp_server17_search", "*"],
  ["webfetch", "https://docs.site18.example.com/guide"],
  ["webfetch", "https://example.org/"],
  ["todowrite", "*"],
]

function naiveLast(rules: readonly Rule[], permission: string, pattern: string): Rule | undefined {
  const paths = permission === "edit" || permission === "read" || permission === "external_directory"
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!
    if (match(permission, rule.permission) && match(pattern, rule.pattern, { paths })) return rule
  }
  return undefined
}

function measure(call: (permission: string, pattern: string) => unknown): { median: number; p99: number } {
  for (let r = 0; r < 200; r++) for (const [permission, pattern] of QUERIES) call(permission, pattern)
  const samples = new Float64Array(ROUNDS)
  let q = 0
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint()
    for (let b = 0; b < BATCH; b++) {
      const [permission, pattern] = QUERIES[q]!
      q = q + 1 === QUERIES.length ? 0 : q + 1
      call(permission, pattern)
    }
    samples[r] = Number(process.hrtime.bigint() - start) / 1000 / BATCH
  }
  samples.sort()
  return { median: samples[Math.floor(ROUNDS / 2)]!, p99: samples[Math.floor(ROUNDS * 0.99)]! }
}

export async function run(): Promise<Record<string, number>> {
  const rules = realisticRules()
  for (const [permission, pattern] of QUERIES) {
    const fast = evaluate(permission, pattern, rules)
    const slow = naiveLast(rules, permission, pattern) ?? { permission, pattern: "*", action: "ask" }
    if (fast.action !== slow.action || fast.pattern !== slow.pattern) {
      throw new Error(
        `index and scan disagree on ${permission} ${pattern}: ${fast.pattern} vs ${slow.pattern}`,
      )
    }
  }

  const start = process.hrtime.bigint()
  const fresh = realisticRules()
  for (const [permission, pattern] of QUERIES) evaluate(permission, pattern, fresh)
  const coldMs = Number(process.hrtime.bigint() - start) / 1e6

  const indexed = measure((permission, pattern) => evaluate(permission, pattern, rules))
  const naive = measure((permission, pattern) => naiveLast(rules, permission, pattern))

  const store = new MemoryApprovalStore()
  for (let i = 0; i < 50; i++) store.add({ projectID: "/p", permission: "bash", pattern: `tool${i} *` })
  const engine = new PermissionEngine({ projectID: "/p", rules: () => rules, approvals: store })
  const viaEngine = measure((permission, pattern) => engine.evaluate({ permission, pattern, agent: "build" }))

  return {
    rules: rules.length,
    evaluate_median_us: indexed.median,
    evaluate_p99_us: indexed.p99,
    naive_scan_median_us: naive.median,
    engine_evaluate_median_us: viaEngine.median,
    first_evaluations_ms: coldMs,
  }
}

export function report(r: Record<string, number>): void {
  console.log(`permission evaluation, ${r.rules} rules, ${QUERIES.length} query shapes (goal: under 5 µs)`)
  console.log(
    `  indexed evaluate      median ${r.evaluate_median_us!.toFixed(3)} µs   p99 ${r.evaluate_p99_us!.toFixed(3)} µs`,
  )
  console.log(`  naive last-match scan median ${r.naive_scan_median_us!.toFixed(3)} µs`)
  console.log(`  engine.evaluate (+50 saved approvals) median ${r.engine_evaluate_median_us!.toFixed(3)} µs`)
  console.log(`  compile + first evaluation of each query shape: ${r.first_evaluations_ms!.toFixed(2)} ms`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) report(await run())
