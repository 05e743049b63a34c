export { ARITY, FLAGS, prefix, prefixLength, toolName, WORD_FLAGS } from "./arity.ts"
export { isFileCommand, type PathKind, type PathOperand, pathOperands } from "./operands.ts"
export { loadBashParser, parseBash } from "./parser.ts"
export { directoryPattern, type Scan, type ScannedCommand, type ScanOptions, scanCommand } from "./scan.ts"
