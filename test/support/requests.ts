import { type DeviceConfiguration, defaultConfiguration } from '#shared/authenticator/state';

/** Request policies as the SDKs send them (docs/protocol.md#policies): any `n` methods. */
export const amountPolicy = (any: number) => ({
  minimum_requirements: [{ requirement: 'authenticated', any, knowledge: 0, inherence: 0, possession: 0 }],
  factors: [],
});

/** A biometric is required. */
export const inherencePolicy = {
  minimum_requirements: [{ requirement: 'authenticated', any: 0, knowledge: 0, inherence: 1, possession: 0 }],
  factors: [],
};

/** Two reasons, the first of them fraud. */
export const denialReasons = [
  { id: 'NOTME', reason: 'I did not ask for this', fraud: true },
  { id: 'LATER', reason: 'Not now', fraud: false },
];

/** The default device with one method set up and changed, e.g. `{ verifies: false }` for a wrong PIN. */
export function withMethod(
  name: keyof DeviceConfiguration['methods'],
  setup: Record<string, boolean>,
  configuration: DeviceConfiguration = defaultConfiguration,
): DeviceConfiguration {
  return { ...configuration, methods: { ...configuration.methods, [name]: { set: true, ...setup } } };
}
