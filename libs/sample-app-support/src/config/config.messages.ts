/** Closing advice of every configuration error. */
const FIX = 'Fix the environment variable and start again.';

/** Text of the configuration errors, built in one place. */
export const configMessages = {
  notAnInteger: (name: string, value: string, min: number, max: number) =>
    `${name} must be a whole number from ${min} to ${max}, got "${value}". ${FIX}`,
  notOneOf: (name: string, value: string, allowed: readonly string[]) =>
    `${name} must be one of ${allowed.map((option) => `"${option}"`).join(', ')}, got "${value}". ${FIX}`,
  notARedisUrl: (name: string) =>
    `${name} must be a redis:// or rediss:// URL (for example redis://127.0.0.1:6379). ${FIX}`,
  notAnHttpUrl: (name: string) =>
    `${name} must be an http:// or https:// URL (for example https://notify.internal/riders). ${FIX}`,
  tooShortSecret: (name: string, length: number, minLength: number) =>
    `${name} must be at least ${minLength} characters (it has ${length}): use a random secret, e.g. \`openssl rand -hex 24\`. ${FIX}`,
  badPrefix: (name: string, value: string) =>
    `${name} must be 1 to 64 characters of letters, digits, "-", "_" or ".", got "${value}". ${FIX}`,
};
