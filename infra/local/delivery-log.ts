import type { LogLineFormat } from '#shared/log';

/** The records of one delivery attempt each, which would fill the terminal of `npm start` with JSON. */
const deliveryMessages = new Set(['Webhook attempt', 'Push attempt']);

/** What Powertools adds to every record: the same on every line, so left out of the readable one. */
const powertoolsKeys = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
]);

/**
 * One line per webhook or push attempt, as a person reads a terminal:
 * `12:00:01 Webhook attempt 1 (authorization-response): delivered in 12 ms; authRequestId …, status 200`.
 * Every other record stays JSON.
 */
export const readableDeliveryLine: LogLineFormat = (attributes) => {
  if (!deliveryMessages.has(String(attributes.message))) return undefined;
  const { timestamp, message, attempt, kind, outcome, ms } = attributes;
  const time = typeof timestamp === 'string' ? new Date(timestamp).toTimeString().slice(0, 8) : '';
  const rest = Object.entries(attributes)
    .filter(
      ([key, value]) =>
        value !== undefined &&
        !powertoolsKeys.has(key) &&
        !['attempt', 'kind', 'outcome', 'ms'].includes(key),
    )
    .map(([key, value]) => `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return `${time} ${String(message)} ${String(attempt)} (${String(kind)}): ${String(outcome)} in ${String(ms)} ms${rest.length > 0 ? `; ${rest.join(', ')}` : ''}`;
};
