// assert and unreachable: invariant failures are AssertionError (never a package error), with lazy messages.
import { describe, expect, it } from 'vitest';
import { AssertionError, assert, unreachable } from '../src/index.js';

describe('assert', () => {
  it('passes on a truthy condition without building the message', () => {
    let built = 0;
    assert(1, () => `built ${++built}`);
    assert('x', 'never shown');
    expect(built).toBe(0);
  });

  it('throws AssertionError with the message (string or function) on a falsy condition', () => {
    expect(() => assert(0, 'count must be positive')).toThrow(AssertionError);
    expect(() => assert(false, () => `count ${-1}`)).toThrow('invariant violated: count -1');
    expect(() => assert(undefined, 'x')).toThrow('invariant violated: x');
  });

  it('narrows the type (compile-time check that asserts condition holds)', () => {
    const value: string | undefined = ['a'][0];
    assert(value !== undefined, 'present');
    expect(value.length).toBe(1);
  });
});

describe('unreachable', () => {
  it('throws AssertionError naming the value that arrived', () => {
    type Kind = 'a' | 'b';
    const kindOf = (kind: Kind): number => {
      switch (kind) {
        case 'a':
          return 1;
        case 'b':
          return 2;
        default:
          return unreachable(kind, 'kind');
      }
    };
    expect(kindOf('b')).toBe(2);
    expect(() => kindOf('c' as Kind)).toThrow(new AssertionError('invariant violated: unexpected kind "c"'));
    expect(() => unreachable(5n as never)).toThrow('unexpected value 5n');
    // base's describeValue: an object is named by its class, never printed (its toJSON or getters would run)
    expect(() => unreachable({ type: 'x' } as never, 'entry')).toThrow('unexpected entry an object');
    expect(() => unreachable(new Uint8Array(3) as never)).toThrow('unexpected value 3 bytes');
  });
});
