import { authMethodNames, type MethodSetup } from '#shared/authenticator/methods';
import type { DeviceConfiguration } from '#shared/authenticator/state';

/** Each aspect of a method, in words, with its value when the setup leaves it out (MethodSetup's defaults). */
const methodAspects: readonly {
  readonly label: string;
  readonly read: (setup: MethodSetup) => boolean;
  readonly words: readonly [whenTrue: string, whenFalse: string];
}[] = [
  { label: 'set up', read: (setup) => setup.set, words: ['yes', 'no'] },
  { label: 'verification', read: (setup) => setup.verifies ?? true, words: ['passes', 'fails'] },
  { label: 'allowed by the app', read: (setup) => setup.allowed ?? true, words: ['yes', 'no'] },
  { label: 'supported by the device', read: (setup) => setup.supported ?? true, words: ['yes', 'no'] },
  { label: 'OS permission', read: (setup) => setup.permission ?? true, words: ['granted', 'not granted'] },
  { label: 'required by the user', read: (setup) => setup.userRequired ?? false, words: ['yes', 'no'] },
];

/** Every setting of a configuration as a person reads it, keyed by its label, in a stable order. */
export function describeSettings(configuration: DeviceConfiguration): Map<string, string> {
  const settings = new Map<string, string>();
  for (const name of authMethodNames) {
    const setup = configuration.methods[name];
    for (const aspect of methodAspects) {
      settings.set(
        `${name} ${aspect.label}`,
        setup === undefined ? 'unknown to the device' : aspect.words[aspect.read(setup) ? 0 : 1],
      );
    }
  }
  const { location, territory } = configuration;
  settings.set('location', location ? `${location.latitude},${location.longitude}` : 'none');
  settings.set(
    'territory',
    territory
      ? [territory.country, territory.administrativeArea, territory.postalCode].filter(Boolean).join(',')
      : 'none',
  );
  const yesNo = (value: boolean | undefined) => (value ? 'yes' : 'no');
  settings.set('rooted or jailbroken', yesNo(configuration.rootedOrJailbroken));
  settings.set('emulator', yesNo(configuration.emulator));
  settings.set('busy with a local request', yesNo(configuration.busyLocal));
  return settings;
}

/** One line per setting that differs, `<setting>: <before> → <after>`; none when nothing changed. */
export function describeChanges(before: DeviceConfiguration, after: DeviceConfiguration): string[] {
  const was = describeSettings(before);
  return [...describeSettings(after)].flatMap(([label, now]) =>
    was.get(label) === now ? [] : [`${label}: ${was.get(label)} → ${now}`],
  );
}
