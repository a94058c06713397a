/**
 * Reads a required environment variable. Modules call it at load time so that a function deployed without its
 * configuration fails at cold start, naming what is missing, instead of on some later request.
 */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Missing required environment variable ${name}`);
  return value;
}

/** A positive whole number from the environment, or `fallback` when unset; anything else fails, naming the variable. */
export function positiveIntegerEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, not ${text}`);
  return value;
}
