// Rewrites one compiled module's imports of Node's built-ins for the CLI bundle (scripts/bundle-cli.js).
//
// 1. Every import of a built-in becomes a `process.getBuiltinModule` read: an ESM import of a built-in makes
//    Node build its ESM facade, which reads every export and so loads the lazy ones too (node:fs's
//    streams, node:crypto's webcrypto), work no command asked for.
// 2. The built-ins that cost milliseconds to load and that most commands never use (LAZY: child
//    processes, crypto, worker threads, sockets, DNS, readline, v8, fs/promises, streams) are not read
//    when the module is evaluated but on first use: each use of an imported name becomes
//    `__builtin_N().name`, where `__builtin_N` loads the module once. `toolbelt call read` then loads
//    none of them (they were a quarter of its start, bench/startup.bench.ts), while `bash` or `webfetch`
//    load theirs when they run.
// 3. Where a lazy rewrite could change what a name means, the import stays eager: a module that also
//    declares a local of the same name (shadowing) or re-exports the imported name.
//
// References are found on the module's syntax tree (the bundler's parser), so a property name, an object
// key or a label that happens to spell an imported name is left alone.

/** Built-ins worth loading only when used (each costs ~1-10 ms to load at start-up, measured). */
const LAZY = new Set([
  "node:child_process",
  "node:crypto",
  "node:worker_threads",
  "node:net",
  "node:tls",
  "node:dgram",
  "node:dns",
  "node:dns/promises",
  "node:readline",
  "node:readline/promises",
  "node:v8",
  "node:http",
  "node:https",
  "node:zlib",
  "node:vm",
  "node:inspector",
  "node:perf_hooks",
  "node:fs/promises",
  "node:stream",
  "node:stream/promises",
])

/**
 * The module's code with its built-in imports rewritten (see above), or null when it imports none.
 * `parse` is the bundler's parser (ESTree with `start`/`end` offsets).
 */
export function rewriteBuiltinImports(code, parse) {
  if (!code.includes('"node:')) return null
  const program = parse(code)
  const imports = program.body.filter(
    (node) =>
      node.type === "ImportDeclaration" &&
      typeof node.source.value === "string" &&
      node.source.value.startsWith("node:"),
  )
  if (imports.length === 0) return null
  const declared = declaredNames(program)
  const exported = exportedNames(program)
  /** Local name → the expression that reads it lazily. */
  const lazy = new Map()
  const edits = []
  imports.forEach((declaration, index) => {
    const name = declaration.source.value
    const canDefer =
      LAZY.has(name) &&
      declaration.specifiers.length > 0 &&
      declaration.specifiers.every((s) => !declared.has(s.local.name) && !exported.has(s.local.name))
    if (!canDefer) {
      edits.push({ start: declaration.start, end: declaration.end, text: eager(declaration) })
      return
    }
    const loader = `__builtin_${index}`
    for (const specifier of declaration.specifiers) {
      const read =
        specifier.type === "ImportSpecifier" ? `${loader}().${importedName(specifier)}` : `${loader}()`
      lazy.set(specifier.local.name, read)
    }
    edits.push({
      start: declaration.start,
      end: declaration.end,
      text: `let ${loader}_module; const ${loader} = () => (${loader}_module ??= process.getBuiltinModule(${JSON.stringify(name)}));`,
    })
  })
  if (lazy.size > 0) collectReferences(program, lazy, edits, new Set(imports))
  edits.sort((a, b) => b.start - a.start)
  let out = code
  let last = Number.POSITIVE_INFINITY
  for (const edit of edits) {
    if (edit.start === last) continue
    last = edit.start
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end)
  }
  return out
}

function importedName(specifier) {
  return specifier.imported.type === "Identifier" ? specifier.imported.name : specifier.imported.value
}

/** `import {a, b as c} from "node:x"` → `const {a, b: c} = process.getBuiltinModule("node:x");` */
function eager(declaration) {
  const read = `process.getBuiltinModule(${JSON.stringify(declaration.source.value)})`
  if (declaration.specifiers.length === 0) return `${read};`
  const named = declaration.specifiers.filter((s) => s.type === "ImportSpecifier")
  const parts = []
  for (const s of declaration.specifiers) {
    // A built-in's default export is its module object, as is its namespace.
    if (s.type !== "ImportSpecifier") parts.push(`const ${s.local.name} = ${read};`)
  }
  if (named.length > 0) {
    const fields = named.map((s) => {
      const from = importedName(s)
      return from === s.local.name ? from : `${JSON.stringify(from)}: ${s.local.name}`
    })
    parts.push(`const {${fields.join(", ")}} = ${read};`)
  }
  return parts.join(" ")
}

/** Every name the module binds anywhere other than its imports (any scope). */
function declaredNames(program) {
  const names = new Set()
  const addPattern = (pattern) => {
    if (!pattern) return
    if (pattern.type === "Identifier") names.add(pattern.name)
    else if (pattern.type === "ObjectPattern")
      for (const p of pattern.properties) addPattern(p.type === "RestElement" ? p.argument : p.value)
    else if (pattern.type === "ArrayPattern") for (const p of pattern.elements) addPattern(p)
    else if (pattern.type === "RestElement") addPattern(pattern.argument)
    else if (pattern.type === "AssignmentPattern") addPattern(pattern.left)
  }
  walk(program, null, (node) => {
    if (node.type === "VariableDeclarator") addPattern(node.id)
    else if (
      node.type === "FunctionDeclaration" ||
      node.type === "FunctionExpression" ||
      node.type === "ArrowFunctionExpression"
    ) {
      addPattern(node.id)
      for (const param of node.params)
        addPattern(param.type === "TSParameterProperty" ? param.parameter : param)
    } else if (node.type === "ClassDeclaration" || node.type === "ClassExpression") addPattern(node.id)
    else if (node.type === "CatchClause") addPattern(node.param)
  })
  return names
}

function exportedNames(program) {
  const names = new Set()
  for (const node of program.body)
    if (node.type === "ExportNamedDeclaration" && !node.source)
      for (const s of node.specifiers) if (s.local.type === "Identifier") names.add(s.local.name)
  return names
}

/** Adds an edit for every use of a lazily imported name. */
function collectReferences(program, lazy, edits, skip) {
  walk(
    program,
    null,
    (node, parent) => {
      if (node.type !== "Identifier" || !lazy.has(node.name)) return
      const read = lazy.get(node.name)
      if (!parent) return
      if (parent.type === "MemberExpression" && parent.property === node && !parent.computed) return
      if (
        (parent.type === "MethodDefinition" || parent.type === "PropertyDefinition") &&
        parent.key === node &&
        !parent.computed
      )
        return
      if (
        parent.type === "LabeledStatement" ||
        parent.type === "BreakStatement" ||
        parent.type === "ContinueStatement"
      )
        return
      // `{ name }` is a key and a use at once (one node or two with the same span, by parser).
      if (parent.type === "Property" && parent.shorthand) {
        edits.push({ start: node.start, end: node.end, text: `${node.name}: ${read}` })
        return
      }
      if (parent.type === "Property" && parent.key === node && !parent.computed) return
      edits.push({
        start: node.start,
        end: node.end,
        text: parent.type === "NewExpression" && parent.callee === node ? `(${read})` : read,
      })
    },
    skip,
  )
}

/** Depth-first over every node, with its parent; `skip` nodes are not entered. */
function walk(node, parent, visit, skip) {
  if (skip?.has(node)) return
  visit(node, parent)
  for (const key in node) {
    if (key === "type" || key === "start" || key === "end") continue
    const value = node[key]
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === "string") walk(child, node, visit, skip)
    } else if (value && typeof value.type === "string") walk(value, node, visit, skip)
  }
}
