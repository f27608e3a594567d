// The slice of the WebAssembly JS API this package uses. lib ES2023 and @types/node 20 declare no WebAssembly values
// (they live in lib.dom), so the types are spelled out here; a real `WebAssembly.Memory` satisfies `WasmMemory`.

/** A WebAssembly.Memory. */
export interface WasmMemory {
  /** The current buffer; replaced (the old one detached) by every grow, even by 0 pages. */
  readonly buffer: ArrayBuffer;
  /** Grows by `delta` pages and returns the old size in pages; throws RangeError beyond the maximum. */
  grow(delta: number): number;
}

export interface WasmMemoryDescriptor {
  initial: number;
  maximum?: number;
}

/** A compiled WebAssembly.Module (opaque here). */
export interface WasmModule {
  readonly [Symbol.toStringTag]: string;
}

/** A WebAssembly.Instance. */
export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

/** The import object of an instantiation: module name → field name → value. */
export type WasmImports = Record<string, Record<string, unknown>>;

interface WasmApi {
  readonly Memory: new (descriptor: WasmMemoryDescriptor) => WasmMemory;
  readonly Module: new (bytes: Uint8Array) => WasmModule;
  readonly Instance: new (module: WasmModule, imports?: WasmImports) => WasmInstance;
  readonly RuntimeError: abstract new (...args: never[]) => Error;
}

/** The global WebAssembly object, typed. */
export const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
