import { h } from '../authenticator/dom.ts';
import { call } from './api.ts';
import { acting, checkbox, formNote, numberIn, textInput, wrapperOf } from './inputs.ts';

/** A service's policy as the console's API answers it: the signed API's form, and one sentence saying what it asks. */
export interface PolicyView {
  readonly policy: Record<string, unknown>;
  readonly summary: string;
}

type Factor = 'knowledge' | 'inherence' | 'possession';

/** A fence as PUT /console/api/services/{id}/policy takes it. */
type FenceForm =
  | { type: 'circle'; name: string | null; latitude: number; longitude: number; radius: number }
  | {
      type: 'territory';
      name: string | null;
      country: string;
      administrative_area: string | null;
      postal_code: string | null;
    };

// The service's own bounds (its policy limits), checked here first so the person reads why at once.
const maxFences = 25;
const maxRadius = 20_037_509;
const maxNameLength = 100;
const maxPostalCode = 16;
const maxAmount = 5;

const factorLabels: Readonly<Record<Factor, string>> = {
  knowledge: 'Knowledge (something the user knows: a PIN)',
  inherence: 'Inherence (something the user is: a fingerprint, a face)',
  possession: 'Possession (something the user has: a passkey, a phone)',
};

/**
 * The policy's summary, and for roles that may change services the editor: a number of methods or specific factors,
 * the device flags, fences (circles by centre and radius, territories), save and remove. No map: it would need tiles
 * from elsewhere, which the page's CSP forbids.
 */
export function policyEditor(view: PolicyView, editable: boolean, servicePath: string): HTMLElement {
  const summary = h('p', { id: 'policy-summary', class: 'summary' }, view.summary);
  const section = h(
    'section',
    { class: 'details policy', 'aria-labelledby': 'policy-heading' },
    h('h2', { id: 'policy-heading' }, 'Policy'),
    h('div', { 'aria-live': 'polite' }, summary),
  );
  if (editable) section.append(editor(view, servicePath, (shown) => (summary.textContent = shown.summary)));
  return section;
}

function editor(view: PolicyView, servicePath: string, shown: (view: PolicyView) => void): HTMLElement {
  const policy = view.policy;
  const editableForm = policy.type === 'FACTORS' || policy.type === 'METHOD_AMOUNT';
  const startFactors = (Array.isArray(policy.factors) ? policy.factors : []).map((each) =>
    String(each).toLowerCase(),
  );
  const fences: FenceForm[] =
    editableForm && Array.isArray(policy.fences) ? policy.fences.map(fenceForm) : [];

  const byAmount = h('input', { type: 'radio', name: 'policy-kind', id: 'kind-amount', value: 'amount' });
  const byFactors = h('input', { type: 'radio', name: 'policy-kind', id: 'kind-factors', value: 'factors' });
  (policy.type === 'FACTORS' ? byFactors : byAmount).checked = true;
  const amount = textInput('Number of methods', {
    value: String(policy.type === 'METHOD_AMOUNT' ? policy.amount : 0),
    hint: `0 to ${maxAmount}: how many different methods the user must verify (0: only the linked device).`,
    inputmode: 'numeric',
  });
  const factors = Object.fromEntries(
    (Object.keys(factorLabels) as Factor[]).map((factor) => [
      factor,
      checkbox(factorLabels[factor], startFactors.includes(factor)),
    ]),
  ) as Record<Factor, HTMLInputElement>;
  const amountPart = h('div', { class: 'indent' }, wrapperOf(amount));
  const factorsPart = h(
    'fieldset',
    { class: 'indent' },
    h('legend', {}, 'Factors the user must verify'),
    ...Object.values(factors).map(wrapperOf),
  );
  const showKind = () => {
    amountPart.hidden = !byAmount.checked;
    factorsPart.hidden = !byFactors.checked;
  };
  byAmount.addEventListener('change', showKind);
  byFactors.addEventListener('change', showKind);
  showKind();

  const rooted = checkbox('Deny rooted or jailbroken devices', policy.deny_rooted_jailbroken === true);
  const emulator = checkbox('Deny emulators and simulators', policy.deny_emulator_simulator === true);

  const fenceList = h('ul', { class: 'fences', 'aria-label': 'Fences' });
  const drawFences = () =>
    fenceList.replaceChildren(
      ...(fences.length
        ? fences.map((fence, index) => {
            const remove = h(
              'button',
              { type: 'button', 'aria-label': `Remove fence ${describe(fence)}` },
              'Remove',
            );
            remove.addEventListener('click', () => {
              fences.splice(index, 1);
              drawFences();
            });
            return h('li', {}, h('span', {}, describe(fence)), remove);
          })
        : [h('li', { class: 'muted' }, 'No fences: the policy holds anywhere.')]),
    );
  drawFences();

  const note = formNote();
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save policy');
  const remove = h('button', { type: 'button' }, 'Remove policy');
  const form = h(
    'form',
    { class: 'policy-form', 'aria-label': 'Policy editor', novalidate: true },
    ...(editableForm || isBlank(policy)
      ? []
      : [
          h(
            'p',
            { class: 'hint' },
            'This policy was set through the API in a form this editor does not show in full (its summary is above). Saving replaces it.',
          ),
        ]),
    h(
      'fieldset',
      {},
      h('legend', {}, 'What the user must verify'),
      h('div', { class: 'check' }, byAmount, h('label', { for: byAmount.id }, 'A number of methods')),
      amountPart,
      h('div', { class: 'check' }, byFactors, h('label', { for: byFactors.id }, 'Specific factors')),
      factorsPart,
    ),
    h('fieldset', {}, h('legend', {}, 'Devices'), wrapperOf(rooted), wrapperOf(emulator)),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Fences'),
      h(
        'p',
        { class: 'hint' },
        'The user must be inside one of them. A place is given by numbers: no map is drawn.',
      ),
      fenceList,
      circleForm(fences, drawFences),
      territoryForm(fences, drawFences),
    ),
    note.element,
    h('div', { class: 'actions' }, save, remove),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body: Record<string, unknown> = {
      fences,
      deny_rooted_jailbroken: rooted.checked,
      deny_emulator_simulator: emulator.checked,
    };
    if (byFactors.checked) {
      const chosen = (Object.keys(factors) as Factor[]).filter((factor) => factors[factor].checked);
      if (chosen.length === 0) return note.say('Choose at least one factor, or ask for a number of methods.');
      body.factors = chosen;
    } else {
      const count = numberIn(amount.value);
      if (count === undefined || !Number.isInteger(count) || count < 0 || count > maxAmount)
        return note.say(`The number of methods must be a whole number from 0 to ${maxAmount}.`);
      body.amount = count;
    }
    void acting(save, note, async () => {
      shown(await call<PolicyView>('PUT', `${servicePath}/policy`, body));
      note.say('Policy saved.', 'success');
    });
  });
  remove.addEventListener(
    'click',
    () =>
      void acting(remove, note, async () => {
        shown(await call<PolicyView>('DELETE', `${servicePath}/policy`));
        fences.splice(0);
        drawFences();
        note.say('Policy removed: the service asks for nothing beyond the linked device.', 'success');
      }),
  );
  return form;
}

const isBlank = (policy: Record<string, unknown>) =>
  policy.type === 'LEGACY' && Array.isArray(policy.factors) && policy.factors.length === 0;

/** A fence of the stored policy as the editor's form sends it back. */
function fenceForm(fence: Record<string, unknown>): FenceForm {
  const name = typeof fence.name === 'string' ? fence.name : null;
  if (fence.type === 'GEO_CIRCLE')
    return {
      type: 'circle',
      name,
      latitude: Number(fence.latitude),
      longitude: Number(fence.longitude),
      radius: Number(fence.radius),
    };
  return {
    type: 'territory',
    name,
    country: String(fence.country),
    administrative_area: typeof fence.administrative_area === 'string' ? fence.administrative_area : null,
    postal_code: typeof fence.postal_code === 'string' ? fence.postal_code : null,
  };
}

function describe(fence: FenceForm): string {
  const named = fence.name ? `“${fence.name}”: ` : '';
  if (fence.type === 'circle')
    return `${named}${fence.radius} m around ${fence.latitude}, ${fence.longitude}`;
  return `${named}${[fence.administrative_area ?? fence.country, fence.postal_code].filter(Boolean).join(' ')}`;
}

function fenceNameProblem(name: string): string | undefined {
  return name.length > maxNameLength
    ? `A fence name must be at most ${maxNameLength} characters.`
    : undefined;
}

function circleForm(fences: FenceForm[], drawn: () => void): HTMLElement {
  const name = textInput('Circle name', { hint: 'Optional, such as Office.' });
  const latitude = textInput('Latitude', { hint: '−90 to 90, such as 36.12', inputmode: 'decimal' });
  const longitude = textInput('Longitude', { hint: '−180 to 180, such as -115.17', inputmode: 'decimal' });
  const radius = textInput('Radius in metres', { hint: 'Such as 500', inputmode: 'decimal' });
  const note = formNote();
  const add = h('button', { type: 'button' }, 'Add circle');
  add.addEventListener('click', () => {
    const lat = numberIn(latitude.value);
    const lon = numberIn(longitude.value);
    const metres = numberIn(radius.value);
    const wrong =
      fenceNameProblem(name.value.trim()) ??
      (lat === undefined || lat < -90 || lat > 90
        ? 'The latitude must be a number from −90 to 90.'
        : undefined) ??
      (lon === undefined || lon < -180 || lon > 180
        ? 'The longitude must be a number from −180 to 180.'
        : undefined) ??
      (metres === undefined || metres <= 0 || metres > maxRadius
        ? `The radius must be a number of metres above 0 and at most ${maxRadius}.`
        : undefined) ??
      (fences.length >= maxFences ? `A policy holds at most ${maxFences} fences.` : undefined);
    if (wrong) return note.say(wrong);
    fences.push({
      type: 'circle',
      name: name.value.trim() || null,
      latitude: lat as number,
      longitude: lon as number,
      radius: metres as number,
    });
    for (const input of [name, latitude, longitude, radius]) input.value = '';
    note.say('Circle added: save the policy to keep it.', 'info');
    drawn();
  });
  return h(
    'div',
    { class: 'fence-form', role: 'group', 'aria-label': 'Add a circle' },
    h('h3', {}, 'Add a circle'),
    ...[name, latitude, longitude, radius].map(wrapperOf),
    note.element,
    h('div', { class: 'actions' }, add),
  );
}

function territoryForm(fences: FenceForm[], drawn: () => void): HTMLElement {
  const name = textInput('Territory name', { hint: 'Optional, such as Nevada.' });
  const country = textInput('Country', { hint: 'Two letters (ISO 3166-1), such as US' });
  const area = textInput('Administrative area', { hint: 'Optional (ISO 3166-2), such as US-NV' });
  const postal = textInput('Postal code', { hint: 'Optional, such as 89109' });
  const note = formNote();
  const add = h('button', { type: 'button' }, 'Add territory');
  add.addEventListener('click', () => {
    const code = country.value.trim().toUpperCase();
    const region = area.value.trim().toUpperCase();
    const zip = postal.value.trim();
    const wrong =
      fenceNameProblem(name.value.trim()) ??
      (/^[A-Z]{2}$/.test(code) ? undefined : 'The country must be two letters, such as US.') ??
      (region === '' || new RegExp(`^${code}-[A-Z]{2}[A-Z]?$`).test(region)
        ? undefined
        : `The administrative area must be the country and two or three letters, such as ${code || 'US'}-NV.`) ??
      (zip.length > maxPostalCode
        ? `The postal code must be at most ${maxPostalCode} characters.`
        : undefined) ??
      (fences.length >= maxFences ? `A policy holds at most ${maxFences} fences.` : undefined);
    if (wrong) return note.say(wrong);
    fences.push({
      type: 'territory',
      name: name.value.trim() || null,
      country: code,
      administrative_area: region || null,
      postal_code: zip || null,
    });
    for (const input of [name, country, area, postal]) input.value = '';
    note.say('Territory added: save the policy to keep it.', 'info');
    drawn();
  });
  return h(
    'div',
    { class: 'fence-form', role: 'group', 'aria-label': 'Add a territory' },
    h('h3', {}, 'Add a territory'),
    ...[name, country, area, postal].map(wrapperOf),
    note.element,
    h('div', { class: 'actions' }, add),
  );
}
