// Replies with pre-encoded parts: a page's events are written straight to JSON bytes (events-format.ts), and the
// reply around them is encoded here with those bytes spliced in, never parsed, re-encoded or turned into a string.

/** UTF-8 JSON text that encodeJson writes as is (the producer guarantees it is one valid JSON value). */
export class RawJson {
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * The UTF-8 bytes of JSON.stringify(value) for values that may hold RawJson: the same text JSON.stringify would
 * write with each RawJson replaced by the value its bytes denote (undefined members skipped, undefined array items
 * as null). Objects are walked only down to the RawJson values; everything else goes through JSON.stringify.
 */
export function encodeJson(value: unknown): Buffer {
  const parts: Uint8Array[] = [];
  let pending = '';
  const walk = (v: unknown): void => {
    if (v instanceof RawJson) {
      parts.push(Buffer.from(pending, 'utf8'), v.bytes);
      pending = '';
    } else if (!holdsRaw(v, 0)) {
      pending += JSON.stringify(v) ?? 'null';
    } else if (Array.isArray(v)) {
      pending += '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) pending += ',';
        const item: unknown = v[i];
        if (item === undefined || typeof item === 'function') pending += 'null';
        else walk(item);
      }
      pending += ']';
    } else {
      pending += '{';
      let first = true;
      for (const [key, member] of Object.entries(v as Record<string, unknown>)) {
        if (member === undefined || typeof member === 'function') continue;
        pending += `${first ? '' : ','}${JSON.stringify(key)}:`;
        first = false;
        walk(member);
      }
      pending += '}';
    }
  };
  walk(value);
  if (parts.length === 0) return Buffer.from(pending, 'utf8');
  parts.push(Buffer.from(pending, 'utf8'));
  return Buffer.concat(parts);
}

/** Replies nest RawJson at most this deep (reply → result → events; a batch adds one). */
const MAX_RAW_DEPTH = 4;

function holdsRaw(value: unknown, depth: number): boolean {
  if (value instanceof RawJson) return true;
  if (depth === MAX_RAW_DEPTH || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => holdsRaw(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) if (holdsRaw((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}
