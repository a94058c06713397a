/**
 * One JSON object per request on the stage's access log, for Logs Insights and metric filters: which route, what it
 * answered and how fast, what the integration reported, and the request id that is also each function log line's
 * `correlation_id` and the `apigw-requestid` header clients get. The status is a bare number so that `$.status = 429`
 * matches it; the other values are strings, as API Gateway writes `-` where it has none (a throttled request has no
 * integration). API Gateway does not escape what it puts between the quotes, so nothing a client writes freely (the
 * user agent) goes in: one quote in it would make the line unreadable, and a 429 on it uncounted.
 */
export const accessLogFields = {
  requestId: '"$context.requestId"',
  requestTime: '"$context.requestTime"',
  routeKey: '"$context.routeKey"',
  status: '$context.status',
  responseLatency: '"$context.responseLatency"',
  integrationStatus: '"$context.integrationStatus"',
  integrationLatency: '"$context.integrationLatency"',
  integrationError: '"$context.integrationErrorMessage"',
  errorMessage: '"$context.error.message"',
  sourceIp: '"$context.identity.sourceIp"',
  responseLength: '"$context.responseLength"',
} as const;

/** The format string API Gateway fills in: {@link accessLogFields} as one line of JSON. */
export const accessLogJson = `{${Object.entries(accessLogFields)
  .map(([name, value]) => `"${name}":${value}`)
  .join(',')}}`;
