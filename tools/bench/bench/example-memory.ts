// A job for the example peak-RSS figure: allocates `mebibytes` and touches every page so it is resident.
export function allocateAndTouch(mebibytes: number): number {
  const bytes = new Uint8Array(mebibytes * 1024 * 1024);
  for (let offset = 0; offset < bytes.length; offset += 4096) bytes[offset] = 1;
  return bytes.length;
}
