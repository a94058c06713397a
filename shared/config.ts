/**
 * Reads a required environment variable. Modules call it at load time so that a function deployed without its
 * configuration fails at cold start, naming what is missing, instead of on some later request.
 */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Missing required environment variable ${name}`);
  return value;
}
