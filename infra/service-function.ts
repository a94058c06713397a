import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { bundlingFor, packageRoot, tracerModuleFile } from '#infra/function-bundling';

/** The service name of every function's logs, traces and metrics (the `service` dimension). */
export const serviceName = 'mfa-authorization';

/** The Lambda runtime every function runs on: the newest Node LTS Lambda offers. */
export const functionRuntime = Runtime.NODEJS_24_X;

export interface ServiceFunctionProps {
  /** Module under functions/, without extension. */
  readonly handler: string;
  readonly role: IRole;
  /** The service's one log group, where Lambda names each function's streams after it. */
  readonly logGroup: ILogGroup;
  readonly memorySize?: number;
  readonly timeout?: Duration;
  /** Concurrency set aside for this function alone, which also caps it. */
  readonly reservedConcurrency?: number;
  readonly environment?: Readonly<Record<string, string>>;
}

/** What makes Node read each bundle's source map, for stack traces that name the sources (`sourceMaps`). */
export const sourceMapsOption = '--enable-source-maps';

/**
 * A function of the service with the project's defaults: a pinned Node runtime on arm64, a minified ESM bundle with
 * source maps beside it made by this package's esbuild (read only with `sourceMaps`), JSON logs in the service's log group, X-Ray tracing by the tracer beside
 * the bundle (shared/tracing.ts).
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id, {
      entry: join(packageRoot, 'functions', `${props.handler}.ts`),
      projectRoot: packageRoot,
      depsLockFilePath: join(packageRoot, 'package-lock.json'),
      handler: 'handler',
      runtime: functionRuntime,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.reservedConcurrency ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      logGroup: props.logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing: Tracing.ACTIVE,
      environment: {
        POWERTOOLS_SERVICE_NAME: serviceName,
        TRACER_MODULE: `./${tracerModuleFile}`,
        ...props.environment,
      },
      bundling: bundlingFor(props.handler),
      role: props.role,
    });
  }
}
