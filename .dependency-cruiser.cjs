// The import rule `npm test` enforces (DESIGN.md "Layers"): imports point down the layers only,
// a tool knows only the tool API, the tools' kit and the platform, and no module imports itself
// back through a cycle. Layers, from the bottom:
//   platform < runtime < tools < adapters < compose < surfaces   (src/index.ts may import all)
//
// The one exception, and its reason:
// - Tests (`*.test.ts`) and test fixtures (`fixtures/`) may import any layer: a test exercises a
//   module together with the real collaborators above it (a tool through a real toolbelt, a kit
//   function through the tool that uses it) instead of mocks of our own code. Not the platform's fixtures,
//   which import only the platform (the lowest layer's helpers need nothing above it).
const TESTS = "(\\.test\\.ts$|/fixtures/)"

const LAYERS = ["platform", "runtime", "tools", "adapters", "compose", "surfaces"]

/** One rule per layer: it may not import any layer above it. */
const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `${layer}-imports-down-only`,
  comment: `src/${layer} may import only ${LAYERS.slice(0, index).join(", ") || "itself"} below it (DESIGN.md "Layers")`,
  severity: "error",
  from: { path: `^src/${layer}/`, pathNot: TESTS },
  to: { path: `^src/(${LAYERS.slice(index + 1).join("|")})/` },
}))

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "tools-know-only-the-tool-api-of-the-runtime",
      comment:
        "A tool knows only the tool API (src/runtime/tool), the tools' kit and the platform; what else it needs comes as a service in ctx.extra",
      severity: "error",
      from: { path: "^src/tools/", pathNot: TESTS },
      to: { path: "^src/runtime/", pathNot: "^src/runtime/tool/" },
    },
    {
      name: "tools-do-not-import-each-other",
      comment:
        "One built-in does not reach into another's folder; what two tools share lives in src/tools/kit (src/tools/index.ts, the list of built-ins, imports them all)",
      severity: "error",
      from: { path: "^src/tools/([^/]+)/", pathNot: TESTS },
      to: { path: "^src/tools/", pathNot: ["^src/tools/$1/", "^src/tools/kit/"] },
    },
    {
      name: "kit-serves-every-tool-and-knows-none",
      comment: "The tools' kit is shared by the built-ins and so may not import any one of them",
      severity: "error",
      from: { path: "^src/tools/kit/", pathNot: TESTS },
      to: { path: "^src/tools/", pathNot: "^src/tools/kit/" },
    },
    {
      name: "platform-fixtures-import-down-only",
      comment:
        "The platform's test fixtures stay in the platform: a fixture that needs the runtime or a tool belongs to the layer that has them (the tools' harness is src/tools/kit/fixtures/harness.ts)",
      severity: "error",
      from: { path: "^src/platform/.*/fixtures/" },
      to: { path: "^src/(runtime|tools|adapters|compose|surfaces)/" },
    },
    {
      name: "no-cycles",
      comment: "A module may not import itself back through other modules",
      severity: "error",
      from: { pathNot: TESTS },
      to: { circular: true },
    },
  ],
  options: {
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^dist/|node_modules|\\.test\\.ts$)" },
    tsPreCompilationDeps: false,
  },
}
