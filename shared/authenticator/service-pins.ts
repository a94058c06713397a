/** docs/protocol.md#answer-packages: a device keeps up to five pins per service and rotates them as a FIFO queue. */
export const servicePinsKept = 5;

const pinDigits = 4;
const pinValues = 10 ** pinDigits;
// Draws at or above the largest multiple of 10 000 below 2³² are redrawn, so every pin is equally likely.
const drawLimit = Math.floor(2 ** 32 / pinValues) * pinValues;

/** The pins after one more answer: a fresh random pin joins, the oldest beyond five leaves. */
export function rotateServicePins(pins: readonly string[]): string[] {
  const fresh = String(randomBelow()).padStart(pinDigits, '0');
  return [...pins, fresh].slice(-servicePinsKept);
}

function randomBelow(): number {
  const draw = new Uint32Array(1);
  do crypto.getRandomValues(draw);
  while ((draw[0] ?? drawLimit) >= drawLimit);
  return (draw[0] ?? 0) % pinValues;
}
