import type { BrowserAuthenticatorState, DeviceConfiguration } from '#shared/authenticator/index';

/** What the page keeps of one linked device (one card): the core's browser state and the factors set up here. */
export interface WebDeviceState extends BrowserAuthenticatorState {
  /** The name the user gave the device when linking, shown on its card. */
  readonly name: string;
  readonly linkedAt: string;
  /**
   * Set while the device waits for one of the user's linked devices to allow it: until when it may be allowed. Such a
   * device may only read how its link stands (docs/protocol.md#device-confirmation).
   */
  readonly awaitingUntil?: string;
  /** Whom the device answers for, by the names the service gives once it is linked: shown instead of ids. */
  readonly directory?: { readonly id: string; readonly name: string };
  readonly organization?: { readonly id: string; readonly name: string };
  /** When the device may start answering, if it was linked while the user's devices cool off. */
  readonly answersFrom?: string;
  /** The passkey this device registered: its credential id, which the service also names in each request. */
  readonly passkey?: { readonly id: string; readonly rpId?: string };
  /** The PIN as PBKDF2-SHA-256 of a random salt, never the PIN itself. */
  readonly pin?: { readonly salt: string; readonly hash: string };
}

/** What a browser knows of itself when it answers: verification outcomes and where it is, if asked. */
export interface Verification {
  readonly passkeyVerified?: boolean;
  readonly pinVerified?: boolean;
  readonly location?: { readonly latitude: number; readonly longitude: number };
  /** Whether the browser may tell its position (false once the user refused). */
  readonly locationPermission?: boolean;
}

/**
 * The device as the shared policy evaluation sees it. The device key is the possession factor (the protocol's only
 * possession method is `wearables`, so it reports there); the passkey with user verification is inherence; the PIN
 * knowledge. A browser cannot tell whether it runs rooted or in an emulator, nor its territory without sending its
 * position away: it says it may be either, and knows no territory, so such policies fail closed (POLICY).
 */
export function configurationOf(state: WebDeviceState, verification: Verification = {}): DeviceConfiguration {
  return {
    methods: {
      wearables: { set: true },
      geofencing: { set: true, permission: verification.locationPermission ?? true },
      pin_code: { set: state.pin !== undefined, verifies: verification.pinVerified ?? true },
      fingerprint: { set: state.passkey !== undefined, verifies: verification.passkeyVerified ?? true },
    },
    ...(verification.location ? { location: verification.location } : {}),
    rootedOrJailbroken: true,
    emulator: true,
  };
}

const pinIterations = 310_000;
const encoder = new TextEncoder();
const base64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');

async function derive(pin: string, salt: string): Promise<string> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(pin), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: encoder.encode(salt), iterations: pinIterations },
    material,
    256,
  );
  return base64url(bits);
}

/** A PIN as the device keeps it. */
export async function hashPin(pin: string): Promise<{ salt: string; hash: string }> {
  const salt = base64url(crypto.getRandomValues(new Uint8Array(16)));
  return { salt, hash: await derive(pin, salt) };
}

export async function pinMatches(state: WebDeviceState, pin: string): Promise<boolean> {
  if (!state.pin) return false;
  return (await derive(pin, state.pin.salt)) === state.pin.hash;
}

/** A PIN a person can type on a phone's number pad: 4 to 12 digits. */
export const pinPattern = /^\d{4,12}$/;
