// The parts of the WebAssembly JS API that the escape attempts (isolation.ts) use and @strata/base's declaration,
// the slice the package itself needs, leaves out: tables, tags and exceptions, the objects through which a host can
// be handed a guest's references. Merged into that one global declaration here, and nowhere else (lib.dom, which
// declares the whole API, is not loaded).
import type {} from '@strata/base';

declare global {
  namespace WebAssembly {
    /** A table of references; `get` returns the one at `index` (a guest function, for a funcref table). */
    interface Table {
      get(index: number): unknown;
    }
    interface TableDescriptor {
      element: 'anyfunc' | 'externref';
      initial: number;
      maximum?: number;
    }
    /** An exception tag: the types of the values an exception with it carries. */
    interface Tag {
      readonly [Symbol.toStringTag]: string;
    }
    interface TagDescriptor {
      parameters: string[];
    }
    /** A WebAssembly exception as the host catches it; `getArg` reads one of the values it carries. */
    interface Exception {
      getArg(tag: Tag, index: number): unknown;
    }

    const Table: new (descriptor: TableDescriptor) => Table;
    const Tag: new (descriptor: TagDescriptor) => Tag;
    /** Only for `instanceof`: the tests never construct one. */
    const Exception: abstract new (...args: never[]) => Exception;
  }
}
