// What crosses between a contract and its host, read from the binary before the runner instantiates it: the
// signature of every exported function (so `run` checks its arguments before leasing a memory), and every way a
// reference could leave an execution and outlive its lease. A guest function that escapes (as a result, through an
// imported function, tag, table or mutable global) keeps its Instance, and so its pooled memory, alive: called
// after the release, it writes into a memory the next tenant gets. Exported memories, tables and globals are not
// listed: the runner never hands out an Instance's exports. The module must have compiled already (this parser
// trusts the structure the engine validated, and fails closed on anything it does not know).
// Binary format: https://webassembly.github.io/spec/core/binary/types.html (with the GC proposal's type forms).
import {
  bad,
  IMPORT_FUNC,
  IMPORT_GLOBAL,
  IMPORT_TABLE,
  IMPORT_TAG,
  readImports,
  readName,
  readSections,
  readU32,
  type Section,
} from './wasm-binary.js';

const SECTION_TYPE = 1;
const SECTION_IMPORT = 2;
const SECTION_FUNCTION = 3;
const SECTION_EXPORT = 7;
const EXPORT_FUNC = 0x00;

const NUMBER_TYPES: Record<number, NumberType> = { 127: 'i32', 126: 'i64', 125: 'f32', 124: 'f64', 123: 'v128' };
/**
 * The abstract heap types by their one-byte encoding: [heap type, the shorthand of its nullable reference type].
 * The same byte is the shorthand reference type as a value type, and the heap type after 0x63 / 0x64.
 */
const ABSTRACT_HEAP_TYPES: Record<number, [heap: string, shorthand: string]> = {
  112: ['func', 'funcref'],
  111: ['extern', 'externref'],
  110: ['any', 'anyref'],
  109: ['eq', 'eqref'],
  108: ['i31', 'i31ref'],
  107: ['struct', 'structref'],
  106: ['array', 'arrayref'],
  105: ['exn', 'exnref'],
  113: ['none', 'nullref'],
  114: ['noextern', 'nullexternref'],
  115: ['nofunc', 'nullfuncref'],
  116: ['noexn', 'nullexnref'],
};
const REF_NULL = 0x63;
const REF = 0x64;
const TYPE_REC = 0x4e;
const TYPE_SUB = 0x50;
const TYPE_SUB_FINAL = 0x4f;
const TYPE_FUNC = 0x60;
const TYPE_STRUCT = 0x5f;
const TYPE_ARRAY = 0x5e;
const PACKED_I8 = 0x78;
const PACKED_I16 = 0x77;

type NumberType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128';

/** A value type as the JS boundary sees it: a number type, or a reference (described as in the text format). */
export type ValueType = NumberType | { reference: string };

export interface FunctionSignature {
  params: ValueType[];
  results: ValueType[];
}

/** One way a reference could outlive an execution. */
export interface ReferenceEscape {
  /** The import or export concerned, e.g. `export "leak"` or `import "env" "table"`. */
  field: string;
  detail: string;
}

export interface ModuleInterface {
  /** Every exported function by export name. */
  functions: Map<string, FunctionSignature>;
  /** Empty for a contract the runner may run. */
  escapes: ReferenceEscape[];
}

export function isReference(type: ValueType): type is { reference: string } {
  return typeof type === 'object';
}

export function describeType(type: ValueType): string {
  return isReference(type) ? type.reference : type;
}

/** Reads the exported function signatures and the reference escapes of a compiled module's binary. */
export function readModuleInterface(code: Uint8Array): ModuleInterface {
  let types: (FunctionSignature | undefined)[] = [];
  const functions: FunctionSignature[] = []; // the function index space: imports first
  const escapes: ReferenceEscape[] = [];
  const exported = new Map<string, FunctionSignature>();
  const signature = (index: number, offset: number): FunctionSignature => {
    const found = types[index];
    if (found === undefined) throw bad(`type ${index} is not a function type`, offset);
    return found;
  };
  for (const section of readSections(code)) {
    if (section.id === SECTION_TYPE) types = readTypes(code, section);
    else if (section.id === SECTION_IMPORT) {
      for (const entry of readImports(code, section)) {
        const field = `import "${entry.module}" "${entry.name}"`;
        const at = entry.descriptor;
        if (entry.kind === IMPORT_FUNC) {
          const type = signature(readU32(code, at, 'function type index').value, at);
          functions.push(type);
          const passed = type.params.filter(isReference);
          if (passed.length > 0)
            escapes.push({
              field,
              detail: `the imported function takes ${list(passed)}: the guest hands it to the host`,
            });
        } else if (entry.kind === IMPORT_TABLE) {
          const element = readValueType(code, at).type;
          escapes.push({ field, detail: `an imported table of ${describeType(element)}: the guest can store into it` });
        } else if (entry.kind === IMPORT_GLOBAL) {
          const { type, next } = readValueType(code, at);
          if (isReference(type) && code[next] === 0x01)
            escapes.push({ field, detail: `an imported mutable global of ${type.reference}: the guest can set it` });
        } else if (entry.kind === IMPORT_TAG) {
          const type = signature(readU32(code, at + 1, 'tag type index').value, at); // attribute byte, type index
          const thrown = type.params.filter(isReference);
          if (thrown.length > 0)
            escapes.push({ field, detail: `the imported tag carries ${list(thrown)}: the host reads what is thrown` });
        }
      }
    } else if (section.id === SECTION_FUNCTION) {
      const count = readU32(code, section.start, 'function count');
      let offset = count.next;
      for (let index = 0; index < count.value; index++) {
        const typeIndex = readU32(code, offset, 'function type index');
        functions.push(signature(typeIndex.value, offset));
        offset = typeIndex.next;
      }
    } else if (section.id === SECTION_EXPORT) {
      const count = readU32(code, section.start, 'export count');
      let offset = count.next;
      for (let index = 0; index < count.value; index++) {
        const name = readName(code, offset, 'export name');
        const kind = code[name.next];
        const functionIndex = readU32(code, name.next + 1, 'export index');
        offset = functionIndex.next;
        if (kind !== EXPORT_FUNC) continue; // memories, tables, globals, tags: the exports never leave the runner
        const type = functions[functionIndex.value];
        if (type === undefined) throw bad(`export ${name.value} names function ${functionIndex.value}`, name.next);
        exported.set(name.value, type);
        const returned = type.results.filter(isReference);
        if (returned.length > 0)
          escapes.push({ field: `export "${name.value}"`, detail: `the export returns ${list(returned)}` });
      }
    }
  }
  return { functions: exported, escapes };
}

function list(types: ValueType[]): string {
  return [...new Set(types.map(describeType))].join(', ');
}

/** The type section: one entry per defined type (rec groups flattened, as type indices count them). */
function readTypes(code: Uint8Array, section: Section): (FunctionSignature | undefined)[] {
  const count = readU32(code, section.start, 'type count');
  const types: (FunctionSignature | undefined)[] = [];
  let offset = count.next;
  for (let index = 0; index < count.value; index++) {
    if (code[offset] === TYPE_REC) {
      const members = readU32(code, offset + 1, 'rec group size');
      offset = members.next;
      for (let member = 0; member < members.value; member++) offset = readSubType(code, offset, types);
    } else {
      offset = readSubType(code, offset, types);
    }
  }
  if (offset !== section.end) throw bad('type section size does not match its entries', offset);
  return types;
}

/** One (sub)type; pushes its signature (undefined for struct and array types) and returns the next offset. */
function readSubType(code: Uint8Array, start: number, types: (FunctionSignature | undefined)[]): number {
  let offset = start;
  if (code[offset] === TYPE_SUB || code[offset] === TYPE_SUB_FINAL) {
    const supertypes = readU32(code, offset + 1, 'supertype count');
    offset = supertypes.next;
    for (let index = 0; index < supertypes.value; index++) offset = readU32(code, offset, 'supertype').next;
  }
  const form = code[offset];
  offset++;
  switch (form) {
    case TYPE_FUNC: {
      const params = readValueTypes(code, offset);
      const results = readValueTypes(code, params.next);
      types.push({ params: params.types, results: results.types });
      return results.next;
    }
    case TYPE_STRUCT: {
      const fields = readU32(code, offset, 'struct field count');
      offset = fields.next;
      for (let index = 0; index < fields.value; index++) offset = skipFieldType(code, offset);
      types.push(undefined);
      return offset;
    }
    case TYPE_ARRAY:
      types.push(undefined);
      return skipFieldType(code, offset);
    default:
      throw bad(`unknown type form 0x${(form ?? 0).toString(16)}`, offset - 1);
  }
}

function skipFieldType(code: Uint8Array, offset: number): number {
  const storage = code[offset];
  const next = storage === PACKED_I8 || storage === PACKED_I16 ? offset + 1 : readValueType(code, offset).next;
  return next + 1; // the mutability byte
}

function readValueTypes(code: Uint8Array, offset: number): { types: ValueType[]; next: number } {
  const count = readU32(code, offset, 'value type count');
  const types: ValueType[] = [];
  let next = count.next;
  for (let index = 0; index < count.value; index++) {
    const read = readValueType(code, next);
    types.push(read.type);
    next = read.next;
  }
  return { types, next };
}

/** One value type. Unknown encodings throw BAD_MODULE: a type this parser cannot classify is not trusted. */
function readValueType(code: Uint8Array, offset: number): { type: ValueType; next: number } {
  const byte = code[offset];
  if (byte === undefined) throw bad('truncated value type', offset);
  const number = NUMBER_TYPES[byte];
  if (number !== undefined) return { type: number, next: offset + 1 };
  const shorthand = ABSTRACT_HEAP_TYPES[byte]?.[1];
  if (shorthand !== undefined) return { type: { reference: shorthand }, next: offset + 1 };
  if (byte === REF_NULL || byte === REF) {
    const nullable = byte === REF_NULL ? 'null ' : '';
    const heap = code[offset + 1];
    if (heap === undefined) throw bad('truncated heap type', offset);
    // An abstract heap type is one byte; a concrete one is a type index (a non-negative s33).
    const abstract = ABSTRACT_HEAP_TYPES[heap]?.[0];
    if (abstract !== undefined) return { type: { reference: `(ref ${nullable}${abstract})` }, next: offset + 2 };
    const index = readU32(code, offset + 1, 'heap type');
    return { type: { reference: `(ref ${nullable}${index.value})` }, next: index.next };
  }
  throw bad(`unknown value type 0x${byte.toString(16)}`, offset);
}
