// What a caller passed, in a few words, for an error message: every package's INVALID_ARGUMENT says "got ..." with
// this, and `unreachable` names the value that arrived with it. Written once, so that every message describes the
// same value the same way.
import { types } from 'node:util';

/** Longest string quoted whole; a longer one is described by its length (a 16 MiB argument is not a 16 MiB message). */
const MAX_QUOTED_STRING = 64;
/** A constructor name worth printing: an identifier of reasonable length (a computed class name can be anything). */
const CLASS_NAME = /^[A-Za-z_$][\w$]{0,63}$/;

// The built-in getters, called on the value directly, so that a subclass or an own property cannot run caller code
// (or lie) when a length is read.
const typedArrayPrototype: object = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayKind = builtinGetter(typedArrayPrototype, Symbol.toStringTag);
const typedArrayLength = builtinGetter(typedArrayPrototype, 'length');
const typedArrayByteLength = builtinGetter(typedArrayPrototype, 'byteLength');
const dataViewByteLength = builtinGetter(DataView.prototype, 'byteLength');
const arrayBufferByteLength = builtinGetter(ArrayBuffer.prototype, 'byteLength');
const sharedArrayBufferByteLength = builtinGetter(SharedArrayBuffer.prototype, 'byteLength');

/**
 * A short description of any value for an error message: `"abc"`, `a string of 70000 characters`, `5`, `5n`,
 * `null`, `a symbol`, `a function`, `an array of 3`, `16 bytes` (a Uint8Array or Buffer), `a Float64Array of 2
 * elements`, `a DataView of 8 bytes`, `an ArrayBuffer of 8 bytes`, `a MemoryPool` (an instance, by its class),
 * `an object` (a plain or prototype-less one), `a proxy`. Never throws, and never runs the value's own code: no
 * `String()` or template literal of a caller's object (`String()` of a prototype-less object and a template literal
 * holding a symbol both throw TypeError, and either would run a `toString` the caller supplied), no getters, no
 * proxy traps.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length > MAX_QUOTED_STRING ? `a string of ${value.length} characters` : JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    case 'object':
      if (value === null) return 'null';
      try {
        return describeObject(value);
      } catch {
        return 'an object'; // not expected (nothing above runs caller code), but a message must never fail
      }
    default:
      return String(value); // boolean, undefined
  }
}

function describeObject(value: object): string {
  if (types.isProxy(value)) return 'a proxy'; // anything else would run its traps
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const kind = typedArrayKind.call(value) as string | undefined;
  if (kind === 'Uint8Array') return count(typedArrayByteLength.call(value), 'byte');
  if (kind !== undefined) return `${withArticle(kind)} of ${count(typedArrayLength.call(value), 'element')}`;
  if (types.isDataView(value)) return `a DataView of ${count(dataViewByteLength.call(value), 'byte')}`;
  if (types.isArrayBuffer(value)) return `an ArrayBuffer of ${count(arrayBufferByteLength.call(value), 'byte')}`;
  if (types.isSharedArrayBuffer(value)) {
    return `a SharedArrayBuffer of ${count(sharedArrayBufferByteLength.call(value), 'byte')}`;
  }
  const name = className(value);
  return name === undefined ? 'an object' : withArticle(name);
}

/** The name of the class `value` is an instance of, read from data properties only; undefined for plain objects. */
function className(value: object): string | undefined {
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === null || typeof prototype !== 'object' || types.isProxy(prototype)) return undefined;
  const classOf: unknown = Object.getOwnPropertyDescriptor(prototype, 'constructor')?.value;
  if (typeof classOf !== 'function' || types.isProxy(classOf)) return undefined;
  const name: unknown = Object.getOwnPropertyDescriptor(classOf, 'name')?.value;
  if (typeof name !== 'string' || name === 'Object' || !CLASS_NAME.test(name)) return undefined;
  return name;
}

function count(n: unknown, unit: string): string {
  return `${n as number} ${unit}${n === 1 ? '' : 's'}`;
}

function withArticle(name: string): string {
  return `${/^[AEIO]/.test(name) ? 'an' : 'a'} ${name}`; // 'a Uint16Array', 'an Int32Array'
}

function builtinGetter(prototype: object, key: PropertyKey): (this: unknown) => unknown {
  // Defined since ES2015 (SharedArrayBuffer's since ES2017): every Node this package supports has them.
  return Object.getOwnPropertyDescriptor(prototype, key)!.get!;
}
