import { fork } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '#test/support/service-process';

/**
 * Runs a script of the bench in a process of its own (for state that is per process: a key ring loaded once, the
 * environment a runtime sets) and resolves with the one message it sends before it exits.
 */
export function inBenchProcess<Figures>(
  script: string,
  args: readonly string[],
  what: string,
): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const child = fork(join(projectRoot, script), args, {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
    });
    let figures: { readonly sent: Figures } | undefined;
    child.once('message', (message) => {
      figures = { sent: message as Figures };
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      figures ? resolve(figures.sent) : reject(new Error(`${what} exited with ${code}`)),
    );
  });
}
