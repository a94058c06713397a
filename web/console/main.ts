/**
 * The console's pages: enrolment from an invite (`#invite=<token>`), sign-in with a passkey, the approval wait for
 * the roles that must approve, and the signed-in sections. Whatever screen is showing, a session the service ends
 * (401 CON-001) brings the page back to sign-in, saying so.
 */
import { notice } from '../authenticator/dom.ts';
import {
  call,
  ConsoleApiError,
  hasSession,
  onConfirmationNeeded,
  onSessionEnded,
  type SessionView,
  useSession,
} from './api.ts';
import { confirmWithPasskey } from './confirmation.ts';
import { needsApproval, renderApproval } from './approval.ts';
import { inviteToken, renderEnrolment } from './enrolment.ts';
import { leaveSignedIn, renderSignedIn, whoIsSignedIn } from './signed-in.ts';
import { showScreen } from './screen.ts';
import { renderSignIn } from './sign-in.ts';
import { problem } from './words.ts';

function signIn(said?: HTMLElement): void {
  useSession(undefined);
  leaveSignedIn();
  renderSignIn(said, signedIn);
}

function signedIn(session: SessionView): void {
  useSession(session);
  const header = whoIsSignedIn(session, () => void signOut());
  if (needsApproval(session)) {
    renderApproval(session, () => void reopen(), header);
  } else {
    renderSignedIn(session, header);
  }
}

async function signOut(): Promise<void> {
  try {
    await call('POST', 'sign-out');
  } catch (error) {
    // An ended session is signed out already; anything else leaves the session as it was, and says why.
    if (!(error instanceof ConsoleApiError && error.code === 'CON-001')) {
      showScreen('Sign-out failed', notice(problem(error), 'error'));
      return;
    }
  }
  signIn(notice('You are signed out.', 'success'));
}

/** Reads the session again (after an approval, or on load) and shows what it may see. */
async function reopen(): Promise<void> {
  const had = hasSession();
  try {
    signedIn(await call<SessionView>('GET', 'session'));
  } catch (error) {
    // A session the page held that ended was already taken back to sign-in, saying so.
    if (!(error instanceof ConsoleApiError && error.code === 'CON-001'))
      signIn(notice(problem(error), 'error'));
    else if (!had) signIn();
  }
}

/** Set once the first screen (sign-in, or the signed-in frame) is drawn: what `npm run bench`'s console section times. */
const firstScreenMark = 'console:first-screen';

onConfirmationNeeded(confirmWithPasskey);
onSessionEnded((detail) =>
  signIn(notice(`Your session ended (${detail}). Sign in again to go on.`, 'error')),
);

const invite = inviteToken(location.hash);
if (invite !== undefined) {
  renderEnrolment(invite, (said) => {
    // The invite is used up: it leaves the address bar and the history.
    history.replaceState(null, '', location.pathname + location.search);
    signIn(said);
  });
} else {
  void reopen().finally(() => performance.mark(firstScreenMark));
}
