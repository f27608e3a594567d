// describeValue: the few words every package's error message uses for a caller's value. Checked here:
// 1. primitives: short strings quoted, long ones by their length; numbers (with -0), bigints, booleans, undefined,
//    null, symbols and functions;
// 2. containers by size: arrays, a Uint8Array (or Buffer) as `N bytes`, other typed arrays by elements, a DataView,
//    an ArrayBuffer and a SharedArrayBuffer by bytes;
// 3. instances by their class's name; plain and prototype-less objects as `an object`;
// 4. it never throws and never runs the value's own code: no toString / toJSON / Symbol.toPrimitive, no getters
//    (Symbol.toStringTag, an overridden length, a constructor or name accessor), no proxy traps (a revoked proxy);
// 5. values from another realm are described like this realm's.
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { describeValue } from '../src/index.js';

describe('describeValue', () => {
  it('1. describes primitives', () => {
    expect(describeValue('abc')).toBe('"abc"');
    expect(describeValue('a"b\n')).toBe('"a\\"b\\n"');
    expect(describeValue('x'.repeat(64))).toBe(JSON.stringify('x'.repeat(64)));
    expect(describeValue('x'.repeat(65))).toBe('a string of 65 characters');
    expect(describeValue('x'.repeat(1 << 24))).toBe(`a string of ${1 << 24} characters`);
    expect(describeValue(1.5)).toBe('1.5');
    expect(describeValue(-0)).toBe('-0');
    expect(describeValue(Number.NaN)).toBe('NaN');
    expect(describeValue(-Infinity)).toBe('-Infinity');
    expect(describeValue(5n)).toBe('5n');
    expect(describeValue(true)).toBe('true');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(Symbol('s'))).toBe('a symbol');
    expect(describeValue(() => 1)).toBe('a function');
    expect(describeValue(class Pool {})).toBe('a function');
  });

  it('2. describes arrays, byte arrays and buffers by their size', () => {
    expect(describeValue([1, 2])).toBe('an array of 2');
    expect(describeValue(new Uint8Array(16))).toBe('16 bytes');
    expect(describeValue(new Uint8Array(1))).toBe('1 byte');
    expect(describeValue(new Uint8Array(32).subarray(8, 12))).toBe('4 bytes');
    expect(describeValue(Buffer.from('abc'))).toBe('3 bytes');
    expect(describeValue(new Float64Array(2))).toBe('a Float64Array of 2 elements');
    expect(describeValue(new Int32Array(1))).toBe('an Int32Array of 1 element');
    expect(describeValue(new Uint16Array(4))).toBe('a Uint16Array of 4 elements');
    expect(describeValue(new Uint8ClampedArray(3))).toBe('a Uint8ClampedArray of 3 elements');
    expect(describeValue(new BigInt64Array(2))).toBe('a BigInt64Array of 2 elements');
    expect(describeValue(new DataView(new ArrayBuffer(8)))).toBe('a DataView of 8 bytes');
    expect(describeValue(new ArrayBuffer(8))).toBe('an ArrayBuffer of 8 bytes');
    expect(describeValue(new SharedArrayBuffer(4))).toBe('a SharedArrayBuffer of 4 bytes');
  });

  it('3. describes instances by their class, plain objects as an object', () => {
    class MemoryPool {}
    class OrderKey {}
    class LiveBucket extends MemoryPool {}
    expect(describeValue(new MemoryPool())).toBe('a MemoryPool');
    expect(describeValue(new OrderKey())).toBe('an OrderKey');
    expect(describeValue(new LiveBucket())).toBe('a LiveBucket');
    expect(describeValue(new Map())).toBe('a Map');
    expect(describeValue(new Date(0))).toBe('a Date');
    expect(describeValue(new TypeError('x'))).toBe('a TypeError');
    expect(describeValue(Promise.resolve())).toBe('a Promise');
    expect(describeValue({ a: 1 })).toBe('an object');
    expect(describeValue(Object.create(null))).toBe('an object');
    expect(describeValue(new (class {})())).toBe('an object'); // an anonymous class has no name to give
  });

  it('4. never throws and never runs the value own code', () => {
    const ran: string[] = [];
    const trap = (what: string) => () => {
      ran.push(what);
      throw new Error(`${what} ran`);
    };
    const hostile = {
      toString: trap('toString'),
      valueOf: trap('valueOf'),
      toJSON: trap('toJSON'),
      [Symbol.toPrimitive]: trap('toPrimitive'),
      get [Symbol.toStringTag]() {
        return trap('toStringTag')();
      },
      get constructor() {
        return trap('constructor getter')();
      },
    };
    expect(describeValue(hostile)).toBe('an object');
    class Lying extends Uint8Array {
      override get length(): number {
        return trap('length getter')();
      }
    }
    expect(describeValue(new Lying(3))).toBe('3 bytes');
    class NameGetter {}
    Object.defineProperty(NameGetter, 'name', { get: trap('static name getter') });
    expect(describeValue(new NameGetter())).toBe('an object');
    const veryLongName = 'C'.repeat(1 << 20);
    const computed = { [veryLongName]: class {} }[veryLongName]!;
    expect(describeValue(new computed())).toBe('an object');
    const throwingTraps = new Proxy({}, { get: trap('get trap'), getPrototypeOf: trap('getPrototypeOf trap') });
    expect(describeValue(throwingTraps)).toBe('a proxy');
    const { proxy: revoked, revoke } = Proxy.revocable([], {});
    revoke();
    expect(describeValue(revoked)).toBe('a proxy');
    expect(describeValue(Object.create(throwingTraps))).toBe('an object');
    const buffer = new ArrayBuffer(8);
    const view = new DataView(buffer);
    structuredClone(buffer, { transfer: [buffer] }); // detaches buffer: reading the view's byteLength throws
    expect(describeValue(buffer)).toBe('an ArrayBuffer of 0 bytes');
    expect(typeof describeValue(view)).toBe('string');
    expect(ran).toEqual([]);
  });

  it('5. describes values from another realm like this one', () => {
    expect(describeValue(runInNewContext('new Uint8Array(4)'))).toBe('4 bytes');
    expect(describeValue(runInNewContext('[1, 2, 3]'))).toBe('an array of 3');
    expect(describeValue(runInNewContext('({})'))).toBe('an object');
    expect(describeValue(runInNewContext('new ArrayBuffer(2)'))).toBe('an ArrayBuffer of 2 bytes');
    expect(describeValue(runInNewContext('new Map()'))).toBe('a Map');
  });
});
