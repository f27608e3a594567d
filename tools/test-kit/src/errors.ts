// Catching the error a call must throw, in one place: tests check a package's error class and then its fields,
// and anything else (another class, or nothing thrown) fails the test with what was thrown instead.

/** A class the tests expect an error to be an instance of. */
export type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.constructor.name}: ${thrown.message}`;
  return `the non-Error ${String(thrown)}`;
}

function expectInstance<E extends Error>(errorClass: ErrorClass<E>, thrown: unknown, threw: boolean): E {
  if (!threw) throw new Error(`expected a ${errorClass.name}, nothing was thrown`);
  if (!(thrown instanceof errorClass)) throw new Error(`expected a ${errorClass.name}, got ${describeThrown(thrown)}`);
  return thrown;
}

/** Runs `call` and returns the `errorClass` error it throws. */
export function errorOf<E extends Error>(errorClass: ErrorClass<E>, call: () => unknown): E {
  try {
    call();
  } catch (error) {
    return expectInstance(errorClass, error, true);
  }
  return expectInstance(errorClass, undefined, false);
}

/** Awaits `call()` and returns the `errorClass` error it rejects (or throws synchronously) with. */
export async function rejectionOf<E extends Error>(errorClass: ErrorClass<E>, call: () => unknown): Promise<E> {
  try {
    await call();
  } catch (error) {
    return expectInstance(errorClass, error, true);
  }
  return expectInstance(errorClass, undefined, false);
}

/** Lower-case hex of bytes, for readable assertion messages and map keys. */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
