import { Authenticator, browserDeviceKeys, linkAuthenticator } from '#shared/authenticator/index';
import { deviceClient, pageFetch } from './answer.ts';
import { configurationOf, hashPin, pinPattern, type WebDeviceState } from './device-state.ts';
import { field, h, notice } from './dom.ts';
import { liveRefresh } from './live-refresh.ts';
import { liveTime } from './live-time.ts';
import {
  type CreationOptionsJson,
  ceremonyProblem,
  createPasskey,
  passkeyPlaceHere,
  placeNotice,
} from './passkey.ts';
import { subscribePush } from './push.ts';
import { indexedDbStateStore } from './state-store.ts';
import { renderWaiting } from './waiting-screen.ts';
import { coolingOffWords, linkProblem, requestDuringSetupWords, waitingWords } from './words.ts';

/** One step of the linking screen: its heading, then what it shows. */
function step(root: HTMLElement, title: string, ...content: (Node | false | undefined)[]): void {
  const heading = h('h2', { tabindex: '-1' }, title);
  root.replaceChildren(heading, ...content.filter((node): node is Node => Boolean(node)));
  heading.focus();
}

/**
 * Links this browser from a QR URL's code, waits for the user's other device to allow it when the user has one, then
 * sets up its factors one screen at a time: the passkey, a PIN, and notifications. `done` runs once the user is
 * through (or skipped what is optional), or asks to start again when the link did not come about.
 */
export function renderLinking(root: HTMLElement, code: string, done: () => void): void {
  const name = field(
    'Name this device',
    h('input', { type: 'text', autocomplete: 'off', maxlength: 64, value: 'Web browser' }),
    'The service shows this name in its list of your devices.',
  );
  const problem = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Link this browser');
  const form = h(
    'form',
    {
      onsubmit: (event: Event) => {
        event.preventDefault();
        button.disabled = true;
        problem.replaceChildren(notice('Making this device’s key…'));
        void link(name.input.value.trim() || 'Web browser').catch((error: unknown) => {
          button.disabled = false;
          problem.replaceChildren(notice(linkProblem(error), 'error'));
        });
      },
    },
    h('p', {}, `Linking code ${code}. This browser keeps a key of its own, which never leaves it.`),
    name.wrapper,
    button,
    problem,
  );
  step(root, 'Link this browser', form);

  async function link(deviceName: string): Promise<void> {
    const linked = await linkAuthenticator({
      baseUrl: location.origin,
      code,
      name: deviceName,
      type: 'Web browser',
      keys: browserDeviceKeys,
    });
    const base: WebDeviceState = { ...linked, name: deviceName, linkedAt: new Date().toISOString() };
    const configured: WebDeviceState = { ...base, configuration: configurationOf(base) };
    const link = await new Authenticator(configured, {
      keys: browserDeviceKeys,
      fetch: pageFetch,
    }).linkState();
    const state: WebDeviceState =
      link.status === 'awaiting-confirmation'
        ? { ...configured, awaitingUntil: link.expires ?? new Date().toISOString() }
        : link.answers_from
          ? { ...configured, answersFrom: link.answers_from }
          : configured;
    await indexedDbStateStore.put(state);
    history.replaceState(null, '', location.pathname);
    if (state.awaitingUntil) {
      renderWaiting(root, state, {
        linked: (next) => void setUp(next, notice(waitingWords.linked, 'success')),
        again: done,
      });
      return;
    }
    await setUp(state);
  }

  /** The factors' screens, once the device is linked; a device cooling off says from when it answers first. */
  async function setUp(state: WebDeviceState, said?: HTMLElement): Promise<void> {
    watchRequests(state);
    const answersFrom = state.answersFrom ? new Date(state.answersFrom) : undefined;
    const cooling =
      answersFrom && answersFrom.getTime() > Date.now()
        ? notice([liveTime(answersFrom, coolingOffWords(answersFrom))])
        : undefined;
    const message = said || cooling ? h('div', {}, said, cooling) : undefined;
    await passkeyStep(state, message).catch((error: unknown) =>
      root.append(notice(linkProblem(error), 'error')),
    );
  }

  /**
   * Says above the setup screens when a request comes in meanwhile, so the person knows to finish: the page reads
   * the device's requests while they set up, as it does once they are done.
   */
  function watchRequests(state: WebDeviceState): void {
    const note = h('div', { class: 'notes' });
    root.before(note);
    let said = '';
    const device = new Authenticator(state, { keys: browserDeviceKeys, fetch: pageFetch });
    const live = liveRefresh(async () => {
      if (!note.isConnected) {
        live.stop();
        return true;
      }
      const pending = await device.pending();
      const words = pending.length
        ? requestDuringSetupWords(pending.map((request) => request.service.name))
        : '';
      if (words !== said) note.replaceChildren(...(words ? [notice(words)] : []));
      said = words;
      return true;
    });
    void live.now();
  }

  async function passkeyStep(state: WebDeviceState, message?: HTMLElement): Promise<void> {
    // Fetched before the button shows: Safari refuses a ceremony after an await in the click handler.
    const options = (
      await deviceClient(state).call<CreationOptionsJson>('POST', '/device/v3/passkey/options')
    ).body as CreationOptionsJson;
    const skip = h('button', { type: 'button', class: 'secondary' }, 'Continue without a passkey');
    skip.addEventListener('click', () => pinStep(state));
    // Where the browser would refuse the ceremony, no button offers it: the page says where it would work.
    const place = passkeyPlaceHere(options.rp.id);
    if (place) {
      // Said once, here, with this step's words: the page's own notice named an address with a code now used.
      document.querySelector('.notes [data-passkey-place]')?.remove();
      const elsewhere = place.openInstead
        ? 'This device is linked here without a passkey. The other address is another site to the browser, with its own keys: for a passkey, link there from a new QR code.'
        : 'This device is linked without a passkey.';
      step(root, 'Add a passkey', message, placeNotice(place), h('p', {}, elsewhere), skip);
      return;
    }
    const add = h('button', { type: 'button', class: 'primary' }, 'Add a passkey');
    add.addEventListener('click', () => {
      add.disabled = true;
      createPasskey(options)
        .then(async (registration) => {
          await deviceClient(state).call('PUT', '/device/v3/passkey', { body: { registration } });
          const passkey = { id: String(registration.id), rpId: options.rp.id ?? location.hostname };
          const withPasskey: WebDeviceState = { ...state, passkey };
          const next = { ...withPasskey, configuration: configurationOf(withPasskey) };
          await indexedDbStateStore.put(next);
          pinStep(next);
        })
        .catch((error: unknown) => {
          // A fresh button with fresh options: never a ceremony the user did not ask for.
          const words = error instanceof DOMException ? ceremonyProblem(error) : linkProblem(error);
          void passkeyStep(state, notice(words, 'error'));
        });
    });
    step(
      root,
      'Add a passkey',
      h(
        'p',
        {},
        'You approve with your screen lock or biometric (fingerprint, face). The service checks it on every answer.',
      ),
      message,
      add,
      skip,
    );
  }

  function pinStep(state: WebDeviceState): void {
    const pin = field(
      'PIN',
      h('input', { type: 'password', inputmode: 'numeric', autocomplete: 'new-password', maxlength: 12 }),
      '4 to 12 digits. Services that ask for something you know will ask for it.',
    );
    const again = field(
      'PIN again',
      h('input', { type: 'password', inputmode: 'numeric', autocomplete: 'new-password', maxlength: 12 }),
    );
    const problem = h('div', { 'aria-live': 'polite' });
    const form = h(
      'form',
      {
        onsubmit: (event: Event) => {
          event.preventDefault();
          if (!pinPattern.test(pin.input.value)) {
            problem.replaceChildren(notice('A PIN is 4 to 12 digits.', 'error'));
            pin.input.focus();
            return;
          }
          if (pin.input.value !== again.input.value) {
            problem.replaceChildren(notice('The two PINs differ. Type the same PIN twice.', 'error'));
            again.input.focus();
            return;
          }
          void hashPin(pin.input.value).then(async (hashed) => {
            const withPin: WebDeviceState = { ...state, pin: hashed };
            const next = { ...withPin, configuration: configurationOf(withPin) };
            await indexedDbStateStore.put(next);
            notificationStep(next);
          });
        },
      },
      pin.wrapper,
      again.wrapper,
      problem,
      h('button', { type: 'submit', class: 'primary' }, 'Set PIN'),
    );
    const skip = h('button', { type: 'button', class: 'secondary' }, 'Skip');
    skip.addEventListener('click', () => notificationStep(state));
    step(root, 'Set a PIN', form, skip);
  }

  function notificationStep(state: WebDeviceState): void {
    const status = h('div', { 'aria-live': 'polite' });
    const turnOn = h('button', { type: 'button', class: 'primary' }, 'Turn on notifications');
    turnOn.addEventListener('click', () => {
      turnOn.disabled = true;
      const asked = 'Notification' in window ? Notification.requestPermission() : Promise.resolve('denied');
      void asked
        .then(() => subscribePush([state]))
        .then(() => {
          status.replaceChildren(notice('Notifications are on.', 'success'));
          finish();
        })
        .catch((error: unknown) => {
          turnOn.disabled = false;
          status.replaceChildren(
            notice(
              `Notifications could not be turned on (${(error as Error).message}). Requests still show here whenever you open this page.`,
              'error',
            ),
            continueButton(),
          );
        });
    });
    const continueButton = () => {
      const button = h('button', { type: 'button', class: 'secondary' }, 'Continue without notifications');
      button.addEventListener('click', finish);
      return button;
    };
    step(
      root,
      'Get notified',
      h('p', {}, 'A notification tells you when a service asks you to approve.'),
      turnOn,
      status,
      continueButton(),
    );
  }

  function finish(): void {
    done();
  }
}
