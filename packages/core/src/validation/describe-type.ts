/** Names the type of a value for an error message without showing the value (it may be user data). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof name === 'string' && name !== 'Object' && name !== '' ? `a ${name}` : 'an object';
  }
  return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
}
