// Loads the optional native helper (native/vm_memory.c, built by the install script into build/Release). Loading
// never throws: a missing or broken binary, another platform or STRATA_VM_MEMORY_NATIVE=0 leave `binding`
// undefined with the reason in `error`, and the pool falls back to the pure-JS pagemap reader.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The helper's version this code speaks (VM_MEMORY_NATIVE_VERSION in native/vm_memory.c). */
export const NATIVE_VERSION = 1;

/**
 * The helper's functions. Each takes the memory's current ArrayBuffer and the byte length the caller expects; a
 * detached buffer, a wrong length or an unaligned base throws (error `code` ESIZE or EINVAL), so a stale or grown
 * buffer can never be reset by mistake. Errors from the kernel carry `code` ENOSYS (not available) or EIO.
 */
export interface NativeBinding {
  /** Byte ranges [start, end) of pages present or swapped and not the zero page, into `out`; returns the count. */
  scanDirty(buffer: ArrayBuffer, expectedLength: number, out: Float64Array): number;
  /** madvise(MADV_DONTNEED) on [offset, offset + length), both page-aligned. */
  decommit(buffer: ArrayBuffer, expectedLength: number, offset: number, length: number): void;
  /** The buffer's base address. */
  address(buffer: ArrayBuffer): number;
  readonly pageSize: number;
  readonly version: number;
}

export interface NativeLoad {
  binding: NativeBinding | undefined;
  /** Why `binding` is undefined. */
  error: string | undefined;
  /** Where the binary is (or would be). */
  path: string;
}

let cached: NativeLoad | undefined;

/** The helper, loaded once per thread. */
export function loadNative(): NativeLoad {
  cached ??= loadUncached();
  return cached;
}

function loadUncached(): NativeLoad {
  // src/native.ts and dist/native.js are both one level below the package root.
  const path = fileURLToPath(new URL('../build/Release/vm_memory.node', import.meta.url));
  if (process.env.STRATA_VM_MEMORY_NATIVE === '0')
    return { binding: undefined, error: 'STRATA_VM_MEMORY_NATIVE=0', path };
  if (process.platform !== 'linux') return { binding: undefined, error: `platform ${process.platform}`, path };
  if (!existsSync(path)) return { binding: undefined, error: 'not built (see scripts/build-native.mjs)', path };
  try {
    const binding = createRequire(import.meta.url)(path) as NativeBinding;
    if (binding.version !== NATIVE_VERSION)
      return { binding: undefined, error: `version ${binding.version}, expected ${NATIVE_VERSION}: rebuild it`, path };
    return { binding, error: undefined, path };
  } catch (error) {
    return { binding: undefined, error: error instanceof Error ? error.message : String(error), path };
  }
}
