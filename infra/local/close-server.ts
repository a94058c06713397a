import type { Server } from 'node:http';

/** Closes a server and every connection it holds open (keep-alive clients, long polls). */
export function closeServer(server: Server): Promise<void> {
  // The embedded engines' servers come from their own packages: not every one has it.
  server.closeAllConnections?.();
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
