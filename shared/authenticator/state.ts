import type { DeviceState } from '#shared/authenticator/evaluate';

/** How the device is set up: what `evaluate` is told about it besides the time. */
export type DeviceConfiguration = Omit<DeviceState, 'now'>;

/** What every host keeps of a linked device between runs, besides its private key (which the host keeps its way). */
export interface LinkedDevice {
  readonly version: 1;
  readonly baseUrl: string;
  readonly deviceId: string;
  readonly directoryId: string;
  readonly configuration: DeviceConfiguration;
  /** Per service id, the pins sent with the last answers, oldest first. */
  readonly servicePins: Readonly<Record<string, readonly string[]>>;
}

/** The CLI's state: the device with its private key in PEM. The file holds that key: it is written 0600. */
export interface AuthenticatorState extends LinkedDevice {
  readonly privateKeyPem: string;
}

/** A phone fresh from setup: a PIN code and a fingerprint, every other method known but not set. */
export const defaultConfiguration: DeviceConfiguration = {
  methods: {
    wearables: { set: false },
    geofencing: { set: false },
    locations: { set: false },
    pin_code: { set: true },
    circle_code: { set: false },
    face: { set: false },
    fingerprint: { set: true },
  },
};

export class AuthenticatorStateError extends Error {
  override readonly name = 'AuthenticatorStateError';
  /** True when no device is linked yet, rather than the state being unreadable. */
  readonly missing: boolean;

  constructor(message: string, options: { cause?: unknown; missing?: boolean } = {}) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.missing = options.missing ?? false;
  }
}

/** What `evaluate` needs at `now`. */
export function deviceStateAt(configuration: DeviceConfiguration, now: Date): DeviceState {
  return { ...configuration, now };
}
