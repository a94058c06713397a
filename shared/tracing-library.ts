/**
 * The X-Ray tracer with what the pipeline uses of it: Powertools Tracer (with aws-xray-sdk-core, cls-hooked and
 * semver, about 125 KB of CommonJS that does not tree-shake) and its middy middleware. In AWS it is a file of its own
 * beside each function's bundle (`TRACER_MODULE`), loaded only by functions that run traced (shared/tracing.ts).
 */
export { Tracer } from '@aws-lambda-powertools/tracer';
export { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
