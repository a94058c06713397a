import { randomInt } from 'node:crypto';

/** docs/protocol.md#answer-packages: a device keeps up to five pins per service and rotates them as a FIFO queue. */
export const servicePinsKept = 5;

const pinDigits = 4;

/** The pins after one more answer: a fresh random pin joins, the oldest beyond five leaves. */
export function rotateServicePins(pins: readonly string[]): string[] {
  const fresh = String(randomInt(10 ** pinDigits)).padStart(pinDigits, '0');
  return [...pins, fresh].slice(-servicePinsKept);
}
