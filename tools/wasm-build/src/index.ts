// @strata/wasm-build (private): WebAssembly text → checked-in TypeScript module, and the drift check tests use.
export { main } from './cli.js';
export {
  type CompiledWat,
  checkWasmModule,
  compileWat,
  type WasmModuleCheck,
  wasmExportName,
  wasmModulePath,
} from './wasm-module.js';
