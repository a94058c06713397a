import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { LambdaNode } from '#infra/assembly/lambda-node';
import { type InvocationOutcome, type RuntimeApi, startRuntimeApi } from '#infra/assembly/runtime-api';

/** A function of the template, as Lambda would run it. */
export interface DeployedFunction {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  /** The asset folder: the function's `/var/task`. */
  readonly codeDirectory: string;
  readonly handler: string;
  /** Exactly the variables the template gives it, resolved. */
  readonly environment: Readonly<Record<string, string>>;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly reservedConcurrency?: number;
  readonly tracing: boolean;
  readonly logFormat: 'JSON' | 'Text';
  readonly logGroup: string;
}

/** How an invocation went, as Lambda's Invoke API reports it. */
export type InvokeResult =
  | { readonly ok: true; readonly payload: unknown; readonly stats: InvocationStats }
  | {
      readonly ok: false;
      readonly errorType: string;
      readonly errorMessage: string;
      readonly stats: InvocationStats;
    };

export interface InvocationStats {
  readonly requestId: string;
  readonly coldStart: boolean;
  /** From the process's start to its runtime client's first request for work (Lambda's Init Duration). */
  readonly initMs?: number;
  readonly durationMs: number;
  /** The X-Ray trace the invocation ran in. */
  readonly traceId: string;
}

/** What every execution environment shares: the runtime, where traces and logs go, the engines' endpoints. */
export interface PoolSettings {
  readonly lambdaNode: LambdaNode;
  /** `host:port` of the X-Ray daemon stand-in. */
  readonly xrayDaemonAddress: string;
  /** The segment Lambda itself records for each invocation of a traced function. */
  readonly recordSegment: (document: object) => void;
  /** Where each function's log stream goes (its log group, locally a file). */
  readonly logDirectory: string;
  /** `AWS_ENDPOINT_URL_*`: the local engines. */
  readonly endpoints: Readonly<Record<string, string>>;
  /** An execution environment idle this long is shut down, as Lambda recycles them. */
  readonly idleMs?: number;
}

interface Container {
  readonly process: ChildProcess;
  readonly api: RuntimeApi;
  readonly startedAt: number;
  busy: boolean;
  served: number;
  idleTimer?: NodeJS.Timeout;
  exited?: string;
}

export class TooManyRequestsError extends Error {
  override readonly name = 'TooManyRequestsException';
}

/**
 * The execution environments of one function: each a process of Lambda's Node running its runtime client over a
 * Runtime API of its own, with the function's asset as its task root and the template's environment. One invocation
 * at a time each; a new one is started (a cold start) when all are busy, up to the function's reserved concurrency.
 * A function past its timeout is ended, as Lambda ends its sandbox.
 */
export class FunctionPool {
  private readonly containers = new Set<Container>();
  private readonly log: WriteStream;
  private stopped = false;
  private lastStats?: InvocationStats;

  constructor(
    readonly definition: DeployedFunction,
    private readonly settings: PoolSettings,
  ) {
    this.log = createWriteStream(join(settings.logDirectory, `${definition.name}.log`), {
      flags: 'a',
      mode: 0o600,
    });
  }

  async invoke(payload: unknown): Promise<InvokeResult> {
    const result = await this.run(payload);
    this.lastStats = result.stats;
    return result;
  }

  private async run(payload: unknown): Promise<InvokeResult> {
    if (this.stopped) throw new Error(`${this.definition.name} has stopped`);
    const requestId = randomUUID();
    const traceId = newTraceId();
    const started = Date.now();
    let container = [...this.containers].find((each) => !each.busy && !each.exited);
    const coldStart = !container;
    let initMs: number | undefined;
    const failed = (errorType: string, errorMessage: string): InvokeResult => ({
      ok: false,
      errorType,
      errorMessage,
      stats: {
        requestId,
        coldStart,
        ...(initMs === undefined ? {} : { initMs }),
        durationMs: Date.now() - started,
        traceId: traceId.root,
      },
    });
    if (!container) {
      const limit = this.definition.reservedConcurrency;
      if (limit !== undefined && this.containers.size >= limit)
        throw new TooManyRequestsError('Rate Exceeded.');
      container = await this.start();
      try {
        await initialized(container, this.definition.timeoutSeconds * 1000);
        initMs = Date.now() - container.startedAt;
      } catch (error) {
        await this.end(container, 'init failed');
        return failed('Runtime.InitError', (error as Error).message);
      }
    }
    container.busy = true;
    clearTimeout(container.idleTimer);
    const invokedAt = Date.now();
    const timeoutMs = this.definition.timeoutSeconds * 1000;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      container.api.invoke({
        requestId,
        payload: JSON.stringify(payload),
        deadlineMs: invokedAt + timeoutMs,
        functionArn: this.definition.arn,
        traceId: traceId.header,
      }),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      }),
      exitOf(container.process).then((reason) => ({ kind: 'exit' as const, reason })),
    ]);
    clearTimeout(timer);
    if (this.definition.tracing) {
      this.settings.recordSegment({
        name: this.definition.name,
        id: traceId.parent,
        trace_id: traceId.root,
        start_time: invokedAt / 1000,
        end_time: Date.now() / 1000,
        origin: 'AWS::Lambda::Function',
        aws: {
          request_id: requestId,
          function_arn: this.definition.arn,
          ...(coldStart ? { cold_start: true } : {}),
        },
        ...(outcome === 'timeout' || (typeof outcome === 'object' && outcome.kind !== 'response')
          ? { fault: true }
          : {}),
      });
    }
    if (outcome === 'timeout') {
      await this.end(container, 'timed out');
      this.write(`${requestId} Task timed out after ${this.definition.timeoutSeconds.toFixed(2)} seconds\n`);
      return failed(
        'Sandbox.Timedout',
        `Task timed out after ${this.definition.timeoutSeconds.toFixed(2)} seconds`,
      );
    }
    if (outcome.kind === 'exit') {
      await this.end(container, outcome.reason);
      return failed(
        'Runtime.ExitError',
        `RequestId: ${requestId} Error: Runtime exited with error: ${outcome.reason}`,
      );
    }
    container.busy = false;
    container.served += 1;
    this.keepWarm(container);
    return settled(outcome, {
      requestId,
      coldStart,
      ...(initMs === undefined ? {} : { initMs }),
      durationMs: Date.now() - started,
      traceId: traceId.root,
    });
  }

  /** How many execution environments are up, and how many invocations each served. */
  get environments(): number[] {
    return [...this.containers].map((container) => container.served);
  }

  /**
   * The stats of the invocation that ended last: a caller that goes through the gateway, which hands back the payload
   * only, reads its cold start here (the bench).
   */
  get lastInvocation(): InvocationStats | undefined {
    return this.lastStats;
  }

  /**
   * Ends every idle execution environment, as Lambda does when it recycles them: the next invocation starts cold. The
   * bench measures cold starts on demand this way.
   */
  async endIdleEnvironments(): Promise<void> {
    const idle = [...this.containers].filter((container) => !container.busy);
    await Promise.all(idle.map((container) => this.end(container, 'recycled')));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.containers].map((container) => this.end(container, 'stopped')));
    await new Promise<void>((resolve) => this.log.end(resolve));
  }

  private async start(): Promise<Container> {
    const { definition, settings } = this;
    const api = await startRuntimeApi();
    const environment: Record<string, string> = {
      ...lambdaEnvironment(definition, settings),
      ...definition.environment,
      AWS_LAMBDA_RUNTIME_API: api.address,
    };
    const child = spawn(
      settings.lambdaNode.node,
      [...memoryArguments(definition.memoryMb), settings.lambdaNode.client],
      {
        cwd: definition.codeDirectory,
        env: environment,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    // Busy from the start: the invocation that started it is its first.
    const container: Container = { process: child, api, startedAt: Date.now(), busy: true, served: 0 };
    void exitOf(child).then((reason) => {
      container.exited = reason;
      this.containers.delete(container);
      void api.close();
    });
    this.containers.add(container);
    return container;
  }

  private keepWarm(container: Container): void {
    clearTimeout(container.idleTimer);
    container.idleTimer = setTimeout(
      () => void this.end(container, 'idle'),
      this.settings.idleMs ?? 10 * 60_000,
    );
    container.idleTimer.unref();
  }

  private async end(container: Container, reason: string): Promise<void> {
    clearTimeout(container.idleTimer);
    this.containers.delete(container);
    if (!container.exited) {
      this.write(`Execution environment ended: ${reason}\n`);
      container.process.kill('SIGKILL');
      await exitOf(container.process);
    }
    await container.api.close();
  }

  private write(line: string): void {
    if (!this.log.writableEnded) this.log.write(line);
  }
}

function settled(outcome: InvocationOutcome, stats: InvocationStats): InvokeResult {
  if (outcome.kind === 'response') {
    return { ok: true, payload: outcome.payload ? (JSON.parse(outcome.payload) as unknown) : null, stats };
  }
  const error = (() => {
    try {
      return JSON.parse(outcome.payload) as { errorType?: string; errorMessage?: string };
    } catch {
      return { errorMessage: outcome.payload };
    }
  })();
  return {
    ok: false,
    errorType: error.errorType ?? outcome.errorType,
    errorMessage: error.errorMessage ?? '',
    stats,
  };
}

/** The runtime client's init, which fails when it reports an error, exits, or outlasts the function's timeout. */
async function initialized(container: Container, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      container.api.ready,
      exitOf(container.process).then((reason) => {
        throw new Error(`Runtime exited during init: ${reason}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Init timed out after ${timeoutMs / 1000} seconds`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const exits = new WeakMap<ChildProcess, Promise<string>>();

/** Why a process ended, once it has. */
function exitOf(child: ChildProcess): Promise<string> {
  let exit = exits.get(child);
  if (!exit) {
    exit =
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve(describeExit(child.exitCode, child.signalCode))
        : new Promise((resolve) => child.once('exit', (code, signal) => resolve(describeExit(code, signal))));
    exits.set(child, exit);
  }
  return exit;
}

const describeExit = (code: number | null, signal: NodeJS.Signals | null) =>
  signal ? `signal: ${signal}` : `exit status ${code ?? 0}`;

/**
 * The heap Lambda's Node runtime gives a function of this memory size: a tenth for the young generation, the rest for
 * the old, so that a function over its memory fails as it would in Lambda.
 */
function memoryArguments(memoryMb: number): string[] {
  const young = Math.floor(memoryMb / 10);
  return [
    `--max-semi-space-size=${Math.max(1, Math.floor(young / 2))}`,
    `--max-old-space-size=${memoryMb - young}`,
  ];
}

/** The variables Lambda sets in every execution environment, beside those of the function's configuration. */
function lambdaEnvironment(definition: DeployedFunction, settings: PoolSettings): Record<string, string> {
  const [host, port] = settings.xrayDaemonAddress.split(':') as [string, string];
  const region = 'us-east-1';
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_EXECUTION_ENV: `AWS_Lambda_nodejs${settings.lambdaNode.version.replace(/^v(\d+).*$/, '$1')}.x`,
    AWS_LAMBDA_FUNCTION_NAME: definition.name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(definition.memoryMb),
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: definition.logGroup,
    AWS_LAMBDA_LOG_STREAM_NAME: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]${randomBytes(16).toString('hex')}`,
    ...(definition.logFormat === 'JSON' ? { AWS_LAMBDA_LOG_FORMAT: 'JSON' } : {}),
    LAMBDA_TASK_ROOT: definition.codeDirectory,
    LAMBDA_RUNTIME_DIR: join(settings.lambdaNode.client, '..'),
    _HANDLER: definition.handler,
    // The function's role, as Lambda hands it over: the local engines take any credentials.
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SESSION_TOKEN: 'local',
    ...(definition.tracing
      ? {
          AWS_XRAY_DAEMON_ADDRESS: settings.xrayDaemonAddress,
          _AWS_XRAY_DAEMON_ADDRESS: host,
          _AWS_XRAY_DAEMON_PORT: port,
          AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
        }
      : {}),
    ...settings.endpoints,
  };
}

/** An X-Ray trace as Lambda starts one for an invocation that arrives without: sampled, with the function's segment. */
function newTraceId(): { root: string; parent: string; header: string } {
  const root = `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
  const parent = randomBytes(8).toString('hex');
  return { root, parent, header: `Root=${root};Parent=${parent};Sampled=1` };
}
