// The prepare step for pooled memories (as nearcore's prepare does): a contract's own memory, or a memory import
// under another name or with limits the pool's memories do not satisfy, becomes one imported `env.memory` with the
// pool's limits. Only the import and memory sections are rewritten; every other section is copied byte for byte
// (memory index 0 keeps meaning the one memory, so data segments, loads, stores and exports are unchanged).
// The section, name and import readers are shared with wasm-interface.ts (what crosses the host boundary).
// Binary format: https://webassembly.github.io/spec/core/binary/modules.html
import { assert } from '@strata/base';
import { optionsObject, poolShape, wasmCode } from './arguments.js';
import { VmMemoryError } from './errors.js';

const MAGIC_AND_VERSION = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const SECTION_CUSTOM = 0;
const SECTION_TYPE = 1;
const SECTION_IMPORT = 2;
const SECTION_MEMORY = 5;
export const IMPORT_FUNC = 0x00;
export const IMPORT_TABLE = 0x01;
const IMPORT_MEMORY = 0x02;
export const IMPORT_GLOBAL = 0x03;
export const IMPORT_TAG = 0x04;
const LIMITS_HAS_MAX = 0x01;
const LIMITS_SHARED = 0x02;
const LIMITS_64 = 0x04;
const LIMITS_PAGE_SIZE = 0x08;

/** Where the runner supplies the pooled memory. */
export const MEMORY_IMPORT = { module: 'env', name: 'memory' } as const;

/** The pool shape a module is prepared for. */
export interface MemoryLimits {
  initialPages: number;
  maximumPages: number;
}

/** The one memory a module declares, if any. */
export type ModuleMemory =
  | { kind: 'none' }
  | { kind: 'defined'; minimum: number; maximum: number | undefined }
  | { kind: 'imported'; module: string; name: string; minimum: number; maximum: number | undefined };

/** Decodes an unsigned LEB128 of at most 32 bits at `offset`; rejects overlong and out-of-range encodings. */
export function readU32(bytes: Uint8Array, offset: number, field = 'u32'): { value: number; next: number } {
  let value = 0;
  for (let index = 0; index < 5; index++) {
    const byte = bytes[offset + index];
    if (byte === undefined) throw bad(`truncated ${field}`, offset);
    if (index === 4 && (byte & 0x80) !== 0) throw bad(`${field} LEB128 longer than 5 bytes`, offset);
    if (index === 4 && byte > 0x0f) throw bad(`${field} does not fit in 32 bits`, offset);
    value += (byte & 0x7f) * 2 ** (7 * index);
    if ((byte & 0x80) === 0) return { value, next: offset + index + 1 };
  }
  assert(false, 'the fifth byte either ends the LEB128 or was rejected');
}

/** Skips any LEB128 (signed or unsigned, up to 64 bits). */
function skipLeb(bytes: Uint8Array, offset: number, field: string): number {
  for (let index = 0; index < 10; index++) {
    const byte = bytes[offset + index];
    if (byte === undefined) throw bad(`truncated ${field}`, offset);
    if ((byte & 0x80) === 0) return offset + index + 1;
  }
  throw bad(`${field} LEB128 longer than 10 bytes`, offset);
}

/** The minimal unsigned LEB128 encoding of `value` (0 .. 2^32 - 1). */
export function encodeU32(value: number): number[] {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`not a u32: ${value}`);
  const out: number[] = [];
  let rest = value;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

export interface Section {
  id: number;
  /** Offset of the section's id byte. */
  header: number;
  /** Payload bounds in the original binary. */
  start: number;
  end: number;
}

export interface ImportEntry {
  /** Bounds of the whole entry in the original binary. */
  start: number;
  end: number;
  kind: number;
  /** Offset of what follows the kind byte (type index, table type, limits, global type, tag type). */
  descriptor: number;
  module: string;
  name: string;
  memory?: { minimum: number; maximum: number | undefined };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function bad(detail: string, offset?: number): VmMemoryError {
  return new VmMemoryError('BAD_MODULE', detail, offset === undefined ? {} : { offset });
}

export function readSections(code: Uint8Array): Section[] {
  for (let index = 0; index < MAGIC_AND_VERSION.length; index++)
    if (code[index] !== MAGIC_AND_VERSION[index]) throw bad('not a WebAssembly 1.0 binary (magic or version)', 0);
  const sections: Section[] = [];
  let offset = MAGIC_AND_VERSION.length;
  while (offset < code.length) {
    const id = code[offset]!;
    const size = readU32(code, offset + 1, 'section size');
    const end = size.next + size.value;
    if (end > code.length) throw bad(`section ${id} runs past the end`, offset);
    sections.push({ id, header: offset, start: size.next, end });
    offset = end;
  }
  return sections;
}

export function readName(code: Uint8Array, offset: number, field: string): { value: string; next: number } {
  const length = readU32(code, offset, `${field} length`);
  const end = length.next + length.value;
  if (end > code.length) throw bad(`truncated ${field}`, offset);
  try {
    return { value: utf8.decode(code.subarray(length.next, end)), next: end };
  } catch (error) {
    throw new VmMemoryError('BAD_MODULE', `${field} is not UTF-8`, { offset, cause: error });
  }
}

/** Reads memory limits; rejects shared, 64-bit and custom-page-size memories (the pool makes none of those). */
function readMemoryLimits(
  code: Uint8Array,
  offset: number,
): { minimum: number; maximum: number | undefined; next: number } {
  const flags = code[offset];
  if (flags === undefined) throw bad('truncated memory limits', offset);
  if ((flags & LIMITS_SHARED) !== 0) throw bad('shared memories are not pooled', offset);
  if ((flags & LIMITS_64) !== 0) throw bad('64-bit memories are not supported', offset);
  if ((flags & LIMITS_PAGE_SIZE) !== 0 || flags > 0x0f)
    throw bad(`unsupported memory limits flags 0x${flags.toString(16)}`, offset);
  const minimum = readU32(code, offset + 1, 'memory minimum');
  if ((flags & LIMITS_HAS_MAX) === 0) return { minimum: minimum.value, maximum: undefined, next: minimum.next };
  const maximum = readU32(code, minimum.next, 'memory maximum');
  return { minimum: minimum.value, maximum: maximum.value, next: maximum.next };
}

/** Skips a value type or reference type (one byte, or 0x63/0x64 followed by a signed heap type). */
function skipValueType(code: Uint8Array, offset: number): number {
  const type = code[offset];
  if (type === undefined) throw bad('truncated value type', offset);
  if (type === 0x63 || type === 0x64) return skipLeb(code, offset + 1, 'heap type');
  return offset + 1;
}

export function readImports(code: Uint8Array, section: Section): ImportEntry[] {
  const count = readU32(code, section.start, 'import count');
  const entries: ImportEntry[] = [];
  let offset = count.next;
  for (let index = 0; index < count.value; index++) {
    const start = offset;
    const module = readName(code, offset, 'import module name');
    const name = readName(code, module.next, 'import name');
    const kind = code[name.next];
    const descriptor = name.next + 1;
    offset = descriptor;
    let memory: ImportEntry['memory'];
    switch (kind) {
      case IMPORT_FUNC:
        offset = readU32(code, offset, 'function type index').next;
        break;
      case IMPORT_TABLE: {
        offset = skipValueType(code, offset);
        const flags = code[offset];
        if (flags === undefined) throw bad('truncated table limits', offset);
        offset = skipLeb(code, offset + 1, 'table minimum');
        if ((flags & LIMITS_HAS_MAX) !== 0) offset = skipLeb(code, offset, 'table maximum');
        break;
      }
      case IMPORT_MEMORY: {
        const limits = readMemoryLimits(code, offset);
        memory = { minimum: limits.minimum, maximum: limits.maximum };
        offset = limits.next;
        break;
      }
      case IMPORT_GLOBAL:
        offset = skipValueType(code, offset) + 1; // then the mutability byte
        break;
      case IMPORT_TAG:
        offset = readU32(code, offset + 1, 'tag type index').next; // attribute byte, then the type index
        break;
      default:
        throw bad(`unknown import kind ${kind}`, name.next);
    }
    if (offset > section.end) throw bad('import entry runs past its section', start);
    const entry: ImportEntry = { start, end: offset, kind, descriptor, module: module.value, name: name.value };
    if (memory !== undefined) entry.memory = memory;
    entries.push(entry);
  }
  if (offset !== section.end) throw bad('import section size does not match its entries', offset);
  return entries;
}

function readDefinedMemories(code: Uint8Array, section: Section): { minimum: number; maximum: number | undefined }[] {
  const count = readU32(code, section.start, 'memory count');
  const memories: { minimum: number; maximum: number | undefined }[] = [];
  let offset = count.next;
  for (let index = 0; index < count.value; index++) {
    const limits = readMemoryLimits(code, offset);
    memories.push({ minimum: limits.minimum, maximum: limits.maximum });
    offset = limits.next;
  }
  if (offset !== section.end) throw bad('memory section size does not match its entries', offset);
  return memories;
}

/** The memory a module declares (throws BAD_MODULE for several memories or an unparseable binary). */
export function inspectMemory(code: Uint8Array): ModuleMemory {
  const sections = readSections(wasmCode(code));
  const memories: ModuleMemory[] = [];
  for (const section of sections) {
    if (section.id === SECTION_IMPORT) {
      for (const entry of readImports(code, section))
        if (entry.memory !== undefined)
          memories.push({ kind: 'imported', module: entry.module, name: entry.name, ...entry.memory });
    } else if (section.id === SECTION_MEMORY) {
      for (const memory of readDefinedMemories(code, section)) memories.push({ kind: 'defined', ...memory });
    }
  }
  if (memories.length > 1) throw bad(`${memories.length} memories: only modules with one memory are pooled`);
  return memories[0] ?? { kind: 'none' };
}

/** Whether a module's memory is already an `env.memory` import that accepts the pool's memories as they are. */
function acceptsPoolMemory(memory: ModuleMemory, limits: MemoryLimits): boolean {
  return (
    memory.kind === 'imported' &&
    memory.module === MEMORY_IMPORT.module &&
    memory.name === MEMORY_IMPORT.name &&
    memory.minimum <= limits.initialPages &&
    (memory.maximum === undefined || memory.maximum >= limits.maximumPages)
  );
}

/**
 * Makes `code` import its memory as `env.memory` with the pool's limits. Returns the input unchanged (`rewritten`
 * false) when it already does so compatibly. Throws BAD_MODULE for malformed binaries, several memories, shared or
 * 64-bit memories, and modules that declare more initial pages than the pool gives (their data segments and
 * `memory.size` would not fit). A module without memory gets the import too, so host functions can use the lease.
 */
export function standardizeMemory(
  code: Uint8Array,
  limits: MemoryLimits,
): { bytes: Uint8Array; rewritten: boolean; memory: ModuleMemory } {
  const given = optionsObject(limits, 'limits', false);
  poolShape(given.initialPages, given.maximumPages);
  const memory = inspectMemory(code);
  if (memory.kind !== 'none' && memory.minimum > limits.initialPages)
    throw bad(`the module needs ${memory.minimum} initial pages, the pool gives ${limits.initialPages}`);
  if (acceptsPoolMemory(memory, limits)) return { bytes: code, rewritten: false, memory };

  const sections = readSections(code);
  const importEntry = [
    ...encodeName(MEMORY_IMPORT.module),
    ...encodeName(MEMORY_IMPORT.name),
    IMPORT_MEMORY,
    LIMITS_HAS_MAX,
    ...encodeU32(limits.initialPages),
    ...encodeU32(limits.maximumPages),
  ];
  const parts: Uint8Array[] = [Uint8Array.from(MAGIC_AND_VERSION)];
  let importWritten = false;
  const writeImportSection = (kept: Uint8Array[], count: number) => {
    const payload = concat([Uint8Array.from(encodeU32(count + 1)), ...kept, Uint8Array.from(importEntry)]);
    parts.push(Uint8Array.from([SECTION_IMPORT, ...encodeU32(payload.length)]), payload);
    importWritten = true;
  };
  for (const section of sections) {
    if (!importWritten && section.id !== SECTION_CUSTOM && section.id !== SECTION_TYPE && section.id !== SECTION_IMPORT)
      writeImportSection([], 0); // no import section: it goes before the first section that must follow it
    if (section.id === SECTION_IMPORT) {
      const kept = readImports(code, section)
        .filter((entry) => entry.kind !== IMPORT_MEMORY)
        .map((entry) => code.subarray(entry.start, entry.end));
      writeImportSection(kept, kept.length);
    } else if (section.id !== SECTION_MEMORY) {
      parts.push(code.subarray(section.header, section.end));
    }
  }
  if (!importWritten) writeImportSection([], 0);
  return { bytes: concat(parts), rewritten: true, memory };
}

function encodeName(name: string): number[] {
  const bytes = new TextEncoder().encode(name);
  return [...encodeU32(bytes.length), ...bytes];
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
