import { h, notice } from '../authenticator/dom.ts';
import { call, ConsoleApiError, endSession, type SessionView } from './api.ts';
import { type Screen, showScreen } from './screen.ts';
import { problem } from './words.ts';

/** How often the page asks whether the sign-in was approved, while it is visible. */
const pollMs = 2000;

interface Approval {
  readonly auth_request: string;
  readonly number: string;
  readonly expires_at: string;
}

interface AuthenticatorLink {
  readonly code: string;
  readonly qr_url: string;
  readonly url: string;
}

/** Every role but the auditor approves its sign-in on its own web authenticator before it may act. */
export const needsApproval = (session: SessionView) =>
  session.stage === 'passkey' && session.role !== 'auditor';

/**
 * The approval wait: the service sends an auth request to the admin's linked web authenticator and the page shows the
 * number to choose there, then asks every 2 s while visible until the session is approved (or ended: the API's
 * session-ended handler takes the page back to sign-in). An admin with no linked authenticator is offered a link.
 */
export function renderApproval(session: SessionView, approved: () => void, header: Node[]): void {
  const screen = showScreen('Approve this sign-in', undefined, ...header);
  const status = h('div', { 'aria-live': 'polite' });
  screen.body.append(status);
  const start = async () => {
    status.replaceChildren(notice('Sending the request to your web authenticator…'));
    let approval: Approval;
    try {
      approval = await call<Approval>('POST', 'sign-in/approval');
    } catch (error) {
      // A reloaded page whose approval is still pending (CON-008) shows that approval's number again.
      const pending = isPending(error) ? await pendingApproval() : undefined;
      if (pending) approval = pending;
      else {
        if (screen.current() && !isEnded(error)) offerLink(screen, status, error, () => void start());
        return;
      }
    }
    if (!screen.current()) return;
    status.replaceChildren(
      h(
        'div',
        { class: 'panel approval' },
        h('p', {}, `${session.name}, approve on your web authenticator and choose`),
        h('p', { class: 'number', 'aria-label': `the number ${approval.number}` }, String(approval.number)),
        h('p', { class: 'muted' }, 'This page goes on by itself once you approve.'),
      ),
    );
    await poll(screen, approved);
  };
  void start();
}

const isPending = (error: unknown) => error instanceof ConsoleApiError && error.code === 'CON-008';

async function pendingApproval(): Promise<Approval | undefined> {
  try {
    const reading = await call<{ state: string; number?: string; expires_at?: string }>(
      'GET',
      'sign-in/approval',
    );
    return reading.state === 'pending' && reading.number !== undefined
      ? { auth_request: '', number: reading.number, expires_at: reading.expires_at ?? '' }
      : undefined;
  } catch {
    return undefined;
  }
}

const isEnded = (error: unknown) => error instanceof ConsoleApiError && error.code === 'CON-001';

async function poll(screen: Screen, approved: () => void): Promise<void> {
  while (screen.current()) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    if (!screen.current()) return;
    if (document.hidden) continue;
    try {
      const answer = await call<{ stage: string; detail?: string }>('GET', 'sign-in/approval');
      if (!screen.current()) return;
      if (answer.stage === 'approved') return approved();
      // Denied, failed, expired or cancelled: the service ended the session and says why.
      if (answer.stage === 'ended') return endSession(answer.detail ?? 'the sign-in was not approved');
    } catch (error) {
      if (isEnded(error) || !screen.current()) return;
      screen.notes.replaceChildren(notice(problem(error), 'error'));
    }
  }
}

function offerLink(screen: Screen, status: HTMLElement, error: unknown, retry: () => void): void {
  const link = h('button', { type: 'button', class: 'primary' }, 'Link your web authenticator');
  const again = h('button', { type: 'button' }, 'Try again');
  const shown = h('div');
  again.addEventListener('click', retry);
  link.addEventListener('click', () => {
    void (async () => {
      link.disabled = true;
      try {
        const linked = await call<AuthenticatorLink>('POST', 'authenticator/link');
        if (!screen.current()) return;
        shown.replaceChildren(
          h(
            'div',
            { class: 'panel' },
            h('p', {}, 'Scan this code with the device to link, or open the address on it:'),
            h('img', { src: linked.qr_url, alt: 'QR code of the link address', width: 240, height: 240 }),
            h('p', {}, h('a', { href: linked.url, class: 'address' }, linked.url)),
            h('p', { class: 'muted' }, `Linking code ${linked.code}. Once linked, try again.`),
          ),
        );
      } catch (failure) {
        if (screen.current() && !isEnded(failure)) shown.replaceChildren(notice(problem(failure), 'error'));
      } finally {
        link.disabled = false;
      }
    })();
  });
  status.replaceChildren(notice(problem(error), 'error'), h('div', { class: 'actions' }, link, again), shown);
}
