/**
 * A Lambda runtime client for where aws-lambda-ric could not be built (no compiler, no Node 22+): the same loop over
 * the Runtime API that Lambda's Node runtime runs. It loads `_HANDLER` from `LAMBDA_TASK_ROOT` as Lambda does, sets
 * each invocation's trace id where the X-Ray SDK reads it, and reports the handler's answer or error. Bundled into the
 * runtime cache by esbuild and run by the function's own Node; it imports nothing of the project.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const api = `http://${process.env.AWS_LAMBDA_RUNTIME_API}/2018-06-01/runtime`;

type Handler = (event: unknown, context: object) => Promise<unknown>;

async function loadHandler(): Promise<Handler> {
  const [module, name] = (process.env._HANDLER ?? 'index.handler').split(/\.(?=[^.]+$)/) as [string, string];
  const root = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
  for (const extension of ['.mjs', '.js', '.cjs']) {
    const file = join(root, `${module}${extension}`);
    const found = await access(file).then(
      () => true,
      () => false,
    );
    if (!found) continue;
    const loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const handler = loaded[name];
    if (typeof handler !== 'function') throw new Error(`${module}.${name} is undefined or not exported`);
    return handler as Handler;
  }
  throw new Error(`Cannot find module '${module}'`);
}

/** The error as the Runtime API takes it, written to the function's log first, as Lambda's runtime client does. */
function errorBody(error: unknown, phase: 'Init' | 'Invoke'): string {
  const cause = error instanceof Error ? error : new Error(String(error));
  const body = JSON.stringify({
    errorType: cause.name,
    errorMessage: cause.message,
    stackTrace: (cause.stack ?? '')
      .split('\n')
      .slice(1)
      .map((line) => line.trim()),
  });
  console.error(`${phase} Error ${body}`);
  return body;
}

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<void> {
  await fetch(`${api}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

let handler: Handler;
try {
  handler = await loadHandler();
} catch (error) {
  await post('/init/error', errorBody(error, 'Init'), {
    'lambda-runtime-function-error-type': 'Runtime.ImportModuleError',
  });
  process.exit(1);
}

for (;;) {
  const next = await fetch(`${api}/invocation/next`);
  const requestId = next.headers.get('lambda-runtime-aws-request-id') ?? '';
  const deadline = Number(next.headers.get('lambda-runtime-deadline-ms'));
  const traceId = next.headers.get('lambda-runtime-trace-id');
  if (traceId) process.env._X_AMZN_TRACE_ID = traceId;
  else delete process.env._X_AMZN_TRACE_ID;
  const event = await next.json();
  const context = {
    awsRequestId: requestId,
    invokedFunctionArn: next.headers.get('lambda-runtime-invoked-function-arn') ?? '',
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  const path = `/invocation/${encodeURIComponent(requestId)}`;
  try {
    const result = await handler(event, context);
    await post(`${path}/response`, JSON.stringify(result ?? null));
  } catch (error) {
    await post(`${path}/error`, errorBody(error, 'Invoke'), {
      'lambda-runtime-function-error-type': 'Unhandled',
    });
  }
}
