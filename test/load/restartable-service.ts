import { freePort, type ServiceProcess, startServiceProcess } from '#test/support/service-process';

/**
 * `npm start`'s runtime in a process of its own that can be killed without warning and started again on the same
 * port and data, as after a crash. Work waits on `ready` before it begins, and compares `epoch` after a failure to
 * tell a request the kill interrupted from a real error.
 */
export interface RestartableService {
  readonly current: ServiceProcess;
  readonly baseUrl: string;
  /** Resolves while the runtime is up; during a restart, once it is up again. */
  readonly ready: Promise<void>;
  /** Counts the kills: a failed flow that began in an earlier epoch was cut short by one. */
  readonly epoch: number;
  /** Times of the last kill and of the runtime answering again, in ms since the epoch; 0 before any. */
  readonly killedAt: number;
  readonly restartedAt: number;
  /** SIGKILL, then start again on the same port and data directory. */
  killAndRestart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRestartableService(dataDir: string): Promise<RestartableService> {
  const port = await freePort();
  const args = ['--port', String(port), '--data-dir', dataDir];
  let current = await startServiceProcess(args);
  let ready = Promise.resolve();
  let epoch = 0;
  let killedAt = 0;
  let restartedAt = 0;
  return {
    get current() {
      return current;
    },
    baseUrl: current.baseUrl,
    get ready() {
      return ready;
    },
    get epoch() {
      return epoch;
    },
    get killedAt() {
      return killedAt;
    },
    get restartedAt() {
      return restartedAt;
    },
    killAndRestart() {
      // Set synchronously, so no flow can start between the new epoch and the kill.
      epoch++;
      killedAt = Date.now();
      ready = (async () => {
        await current.stop('SIGKILL');
        current = await startServiceProcess(args);
        restartedAt = Date.now();
      })();
      return ready;
    },
    async stop() {
      await ready.catch(() => undefined);
      await current.stop('SIGINT');
    },
  };
}
