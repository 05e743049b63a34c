// Finds the error messages written in src/ and renders each as text with its holes marked, for the
// convention check (./rules.ts). TypeScript 5's parser reads the files (the repository's own
// TypeScript 7 has no API), so a message split over lines, templates and `+` is seen whole.
//
// A message is the first string argument of `new XError(...)`/`new XFailure(...)` and of `fail(...)`,
// or the `message`/`error` of an errors-as-data value (an object literal with `ok: false`). An
// interpolation becomes a hole `{expression}`; a choice `a ? "x" : "y"` gives one message per branch.
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import ts from "typescript-5"

export interface Message {
  /** The file, relative to the repository root, with forward slashes. */
  readonly file: string
  readonly line: number
  /** The class constructed (`ToolFailure`, `Error`, ...), `fail` or `data` (an `ok: false` value). */
  readonly site: string
  /** The text, each interpolation shown as `{expression}`. */
  readonly text: string
}

/** Every message written in the TypeScript sources under `dir` (tests and fixtures left out). */
export function scanMessages(root: string, dir = "src"): Message[] {
  return sourceFiles(join(root, dir)).flatMap((path) =>
    messagesIn(relative(root, path).split("\\").join("/"), readFileSync(path, "utf8")),
  )
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : sourceFiles(path)
    const source = entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")
    return source && !entry.name.endsWith(".test.ts") ? [path] : []
  })
}

/** The messages of one file's source text. */
export function messagesIn(file: string, text: string): Message[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: Message[] = []
  const add = (site: string, node: ts.Expression) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
    for (const variant of render(node, source)) found.push({ file, line, site, text: variant })
  }
  const visit = (node: ts.Node): void => {
    const site = siteOf(node)
    if (site !== undefined) {
      const call = node as ts.NewExpression | ts.CallExpression
      const argument = call.arguments?.find((each) => isText(each))
      if (argument !== undefined) add(site, argument)
    } else if (ts.isObjectLiteralExpression(node) && isFailureValue(node)) {
      for (const property of node.properties) {
        if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue
        const name = property.name.text
        if ((name === "message" || name === "error") && isText(property.initializer))
          add("data", property.initializer)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The site's name when `node` builds an error: `new XError(...)`, `new XFailure(...)` or `fail(...)`. */
function siteOf(node: ts.Node): string | undefined {
  if (ts.isNewExpression(node)) {
    // `new ToolFailure(...)` or `new Tool.ToolFailure(...)`: the class's own name.
    const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression
    if (!ts.isIdentifier(callee)) return undefined
    return /(Error|Failure)$/.test(callee.text) ? callee.text : undefined
  }
  if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "fail")
    return "fail"
  return undefined
}

function isFailureValue(node: ts.ObjectLiteralExpression): boolean {
  return node.properties.some(
    (property) =>
      ts.isPropertyAssignment(property) &&
      ts.isIdentifier(property.name) &&
      property.name.text === "ok" &&
      property.initializer.kind === ts.SyntaxKind.FalseKeyword,
  )
}

/** Whether `node` is text written here: a string, a template, or `+`/`?:` over them. */
function isText(node: ts.Node): boolean {
  if (ts.isParenthesizedExpression(node)) return isText(node.expression)
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
    return true
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return isText(node.left) || isText(node.right)
  }
  if (ts.isConditionalExpression(node)) return isText(node.whenTrue) && isText(node.whenFalse)
  return false
}

/** The texts `node` can be, holes as `{expression}` (at most 8 variants: choices multiply). */
function render(node: ts.Node, source: ts.SourceFile): string[] {
  if (ts.isParenthesizedExpression(node)) return render(node.expression, source)
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text]
  if (ts.isTemplateExpression(node)) {
    let texts = [node.head.text]
    for (const span of node.templateSpans) {
      const holes = renderHole(span.expression, source)
      texts = combine(combine(texts, holes), [span.literal.text])
    }
    return texts
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    return combine(renderHole(node.left, source), renderHole(node.right, source))
  }
  if (ts.isConditionalExpression(node)) {
    return [...render(node.whenTrue, source), ...render(node.whenFalse, source)].slice(0, 8)
  }
  return [`{${node.getText(source).replace(/\s+/g, " ")}}`]
}

/** An interpolated expression: text written here stays text, anything else is a hole. */
function renderHole(node: ts.Expression, source: ts.SourceFile): string[] {
  return isText(node) ? render(node, source) : [`{${node.getText(source).replace(/\s+/g, " ")}}`]
}

function combine(heads: string[], tails: string[]): string[] {
  return heads.flatMap((head) => tails.map((tail) => head + tail)).slice(0, 8)
}
