// The slice of the WebAssembly JS API Strata uses, declared once for every package. lib ES2023 and @types/node 20
// declare no WebAssembly values (they live in lib.dom), so without this each package cast globalThis its own way.
// Importing anything from @strata/base brings the declaration into scope.

declare global {
  namespace WebAssembly {
    /** A compiled module. */
    interface Module {
      readonly [Symbol.toStringTag]: string;
    }
    /** An instantiated module. */
    interface Instance {
      readonly exports: Record<string, unknown>;
    }
    /** A linear memory. `buffer` is replaced (the old one detached) by every grow, even by 0 pages. */
    interface Memory {
      readonly buffer: ArrayBuffer;
      /** Grows by `delta` pages and returns the old size in pages; throws RangeError beyond the maximum. */
      grow(delta: number): number;
    }
    interface MemoryDescriptor {
      initial: number;
      maximum?: number;
      shared?: boolean;
    }
    /** A global variable. */
    interface Global<T = unknown> {
      value: T;
    }
    /** The import object of an instantiation: module name → field name → value. */
    type Imports = Record<string, Record<string, unknown>>;
    type ModuleExportDescriptor = { readonly name: string; readonly kind: string };
    type ModuleImportDescriptor = { readonly module: string; readonly name: string; readonly kind: string };

    const Module: {
      new (bytes: Uint8Array | ArrayBuffer): Module;
      exports(module: Module): ModuleExportDescriptor[];
      imports(module: Module): ModuleImportDescriptor[];
    };
    const Instance: new (module: Module, imports?: Imports) => Instance;
    const Memory: new (descriptor: MemoryDescriptor) => Memory;
    const Global: new <T>(descriptor: { value: string; mutable?: boolean }, value?: T) => Global<T>;
    const CompileError: new (message?: string) => Error;
    const LinkError: new (message?: string) => Error;
    const RuntimeError: new (message?: string) => Error;
    function validate(bytes: Uint8Array | ArrayBuffer): boolean;
  }
}

export {};
