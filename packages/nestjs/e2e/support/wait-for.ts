/** Polling helper shared by every e2e suite (libs/redis-testing). */
export { waitFor } from '@durable-timeout/redis-testing';

/** A unique key prefix for one test. */
export function uniquePrefix(name: string): string {
  return `dt-nest-${name}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
