// Admin › Sites: the tree (each site with Edit and Delete), a new site, a new location. An edit
// renames, moves (below the top tier), (de)activates or makes primary: PUT /inboundsites/{id}.
import { get, post, put, del } from '../api.js'
import { html, Field, Alert, refusal, siteName } from '../ui.js'
import { loadSites } from '../data.js'
import { useForm, useList, useAction, useConfirm, RowActions, deleter, EditCard, useEditing } from '../admin-kit.js'
import { SITE_STATUSES, SITE_TYPES } from '../vocabulary.js'
import {
  SiteHoldSettings,
  HOLD_FIELDS,
  feeValues,
  feeChange,
  useReturnDeadline,
  deadlineChange,
  saveDeadline,
} from './site-hold-settings.js'
import { SiteQuietHours, QUIET_FIELDS, quietValues, quietChange } from './site-quiet-hours.js'

/** A site's statuses (the server's vocabulary module does not list them yet). */

export function Sites() {
  const sites = useList(() => loadSites({ fresh: true }))
  const locations = useList(() => get('/api/v1/locations?limit=200').then((r) => r.locations))
  const action = useAction()
  const edit = useEditing(sites.reload, action)
  const confirm = useConfirm()
  const remove = deleter({ confirm, action, reload: sites.reload })
  const form = useForm(
    { name: '', type: 'site', parent: '', locationId: '' },
    async (v) => {
      const body =
        v.type === 'site'
          ? { type: 'site', name: v.name, locationId: v.locationId }
          : { type: v.type, name: v.name, parent: v.parent }
      await post('/api/v1/inboundsites', body)
      await sites.reload()
      return `Site ${v.name} created.`
    },
    ['name', 'type', 'parent', 'locationId'],
  )
  const loc = useForm(
    { name: '', postalCode: '', country: 'US', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone },
    async (v) => {
      await post('/api/v1/locations', {
        name: v.name,
        address: { postalCode: v.postalCode, country: v.country },
        timezone: v.timezone,
      })
      await locations.reload()
      return `Location ${v.name} created.`
    },
    ['name', 'address', 'timezone'],
  )
  if (sites.error) return html`<${Alert} messages=${[refusal(sites.error)]} />`
  const list = sites.items ?? []
  const tree = (parent) => {
    const kids = list.filter((s) => (s.parent ?? '') === parent)
    return kids.length === 0
      ? null
      : html`<ul>
          ${kids.map(
            (s) =>
              html`<li>
                <span>${s.name}</span>
                <small>${s.type}${s.status === 'inactive' ? ', inactive' : ''}${s.primary ? ', primary' : ''}</small>
                <${RowActions}
                  name=${s.name}
                  editing=${edit.id === s.inboundSiteId}
                  onEdit=${() => edit.toggle(s.inboundSiteId)}
                  onDelete=${() => remove('site', s.name, () => del(`/api/v1/inboundsites/${s.inboundSiteId}`))}
                />
                ${tree(s.inboundSiteId)}
              </li>`,
          )}
        </ul>`
  }
  const site = list.find((s) => s.inboundSiteId === edit.id)
  return html`<section aria-labelledby="tree-title" class="card">
      <h2 id="tree-title">Sites tree</h2>
      ${action.messages}
      <div class="tree">${tree('')}</div>
      ${confirm.dialog}
    </section>
    ${
      site &&
      html`<${EditSite}
        key=${site.inboundSiteId}
        site=${site}
        sites=${list}
        onDone=${edit.done}
        onCancel=${edit.cancel}
      />`
    }
    <form class="card" novalidate onSubmit=${form.onSubmit} aria-labelledby="new-site">
      <h2 id="new-site">New site</h2>
      ${form.messages}
      <${Field} label="Site name" id="site-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
      <${Field} label="Type" id="site-type" errors=${form.errorsOf('type')}>${(a) =>
        html`<select ...${a} ...${form.pick('type')}>
          ${SITE_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}
        </select>`}</${Field}>
      ${
        form.values.type === 'site'
          ? html`<${Field} label="Location" id="site-location" errors=${form.errorsOf('locationId')}>${(a) =>
              html`<select ...${a} ...${form.pick('locationId')}>
                <option value="">Choose a location…</option>
                ${(locations.items ?? []).map((l) => html`<option value=${l.locationId}>${l.name}</option>`)}
              </select>`}</${Field}>`
          : html`<${Field} label="Parent site" id="site-parent" errors=${form.errorsOf('parent')}>${(a) =>
              html`<select ...${a} ...${form.pick('parent')}>
                <option value="">Choose the parent…</option>
                ${list.map((s) => html`<option value=${s.inboundSiteId}>${siteName(s)}</option>`)}
              </select>`}</${Field}>`
      }
      <button type="submit" disabled=${form.busy}>Create site</button>
    </form>
    <form class="card" novalidate onSubmit=${loc.onSubmit} aria-labelledby="new-loc">
      <h2 id="new-loc">New location (an address sites belong to)</h2>
      ${loc.messages}
      <${Field} label="Location name" id="loc-name" errors=${loc.errorsOf('name')}>${(a) => html`<input ...${a} ...${loc.bind('name')} />`}</${Field}>
      <${Field} label="Street address" id="loc-line1" errors=${loc.errorsOf('address.line1')}>${(a) => html`<input ...${a} ...${loc.bind('line1')} />`}</${Field}>
      <${Field} label="City" id="loc-city" errors=${loc.errorsOf('address.city')}>${(a) => html`<input ...${a} ...${loc.bind('city')} />`}</${Field}>
      <${Field} label="State" id="loc-state" errors=${loc.errorsOf('address.state')}>${(a) => html`<input ...${a} ...${loc.bind('state')} />`}</${Field}>
      <${Field} label="Postal code" id="loc-zip" errors=${loc.errorsOf('address.postalCode')}>${(a) => html`<input ...${a} ...${loc.bind('postalCode')} />`}</${Field}>
      <${Field} label="Country" id="loc-country" errors=${loc.errorsOf('address.country')}>${(a) => html`<input ...${a} ...${loc.bind('country')} />`}</${Field}>
      <${Field} label="Time zone" id="loc-tz" errors=${loc.errorsOf('timezone')}>${(a) => html`<input ...${a} ...${loc.bind('timezone')} />`}</${Field}>
      <button type="submit" disabled=${loc.busy}>Create location</button>
    </form>`
}

/** The sites a site may move under: not itself nor anything below it (the server refuses those too). */
const moveTargets = (site, sites) =>
  sites.filter((s) => s.inboundSiteId !== site.inboundSiteId && !(s.ancestorlist ?? []).includes(site.inboundSiteId))

function EditSite({ site, sites, onDone, onCancel }) {
  const top = site.type === 'site'
  const form = useForm(
    {
      name: site.name,
      status: site.status ?? 'active',
      parent: site.parent ?? '',
      primary: Boolean(site.primary),
      openingHours: site.openingHours ?? '',
      signatureRule: site.signatureRule ?? '',
      photoProofAllowed: site.photoProofAllowed === undefined ? '' : String(site.photoProofAllowed),
      ...feeValues(site.holdingFee),
      ...quietValues(site.quietHours),
    },
    async (v) => {
      // Both checked before either is sent: a refused deadline does not follow a saved site.
      const days = deadlineChange(v, deadline)
      const quiet = quietChange(v, site.quietHours)
      // Only what changed: a PUT merges, and a move or a primary flag has effects beyond this site.
      const body = {
        ...(v.name !== site.name ? { name: v.name } : {}),
        ...(v.status !== (site.status ?? 'active') ? { status: v.status } : {}),
        ...(!top && v.parent !== (site.parent ?? '') ? { parent: v.parent } : {}),
        ...(top && v.primary !== Boolean(site.primary) ? { primary: v.primary } : {}),
        ...(v.openingHours.trim() !== (site.openingHours ?? '') ? { openingHours: v.openingHours.trim() || null } : {}),
        // "" is "as the site above says" (null on the wire).
        ...(v.signatureRule !== (site.signatureRule ?? '') ? { signatureRule: v.signatureRule || null } : {}),
        ...(v.photoProofAllowed !== (site.photoProofAllowed === undefined ? '' : String(site.photoProofAllowed))
          ? { photoProofAllowed: v.photoProofAllowed === '' ? null : v.photoProofAllowed === 'true' }
          : {}),
        ...feeChange(v, site.holdingFee),
        ...quiet,
      }
      if (Object.keys(body).length > 0) await put(`/api/v1/inboundsites/${site.inboundSiteId}`, body)
      await saveDeadline(site.inboundSiteId, days)
      await onDone(`Site ${v.name} saved.`)
    },
    [
      'name',
      'status',
      'parent',
      'primary',
      'openingHours',
      'signatureRule',
      'photoProofAllowed',
      ...HOLD_FIELDS,
      ...QUIET_FIELDS,
    ],
  )
  const deadline = useReturnDeadline(site.inboundSiteId, form.setValues)
  return html`<${EditCard}
    titleId="edit-site"
    title=${`Edit site ${site.name}`}
    onSubmit=${form.onSubmit}
    messages=${form.messages}
    busy=${form.busy}
    onCancel=${onCancel}
  >
    <${Field} label="Name" id="edit-site-name" errors=${form.errorsOf('name')}>${(a) => html`<input ...${a} ...${form.bind('name')} />`}</${Field}>
    <${Field} label="Status" id="edit-site-status" errors=${form.errorsOf('status')}>${(a) =>
      html`<select ...${a} ...${form.pick('status')}>
        ${SITE_STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select>`}</${Field}>
    ${
      top
        ? html`<label class="check"><input type="checkbox" ...${form.check('primary')} /> Primary site</label>`
        : html`<${Field} label="Parent site" id="edit-site-parent" errors=${form.errorsOf('parent')}>${(a) =>
            html`<select ...${a} ...${form.pick('parent')}>
              ${moveTargets(site, sites).map((s) => html`<option value=${s.inboundSiteId}>${siteName(s)}</option>`)}
            </select>`}</${Field}>`
    }
    <${Field} label="Opening hours" id="edit-site-hours" hint="Shown in arrival emails, e.g. Mon–Fri 8:00–18:00." errors=${form.errorsOf('openingHours')}>${(
      a,
    ) => html`<input ...${a} ...${form.bind('openingHours')} />`}</${Field}>
    <${Field} label="Signature at hand-over" id="edit-site-signature" errors=${form.errorsOf('signatureRule')}>${(a) =>
      html`<select ...${a} ...${form.pick('signatureRule')}>
        <option value="">As the site above (required at the top)</option>
        <option value="required">Required</option>
        <option value="optional">Optional</option>
        <option value="off">Off</option>
      </select>`}</${Field}>
    <${Field} label="Photo of the collector or their ID instead of a signature" id="edit-site-photo" errors=${form.errorsOf('photoProofAllowed')}>${(
      a,
    ) =>
      html`<select ...${a} ...${form.pick('photoProofAllowed')}>
        <option value="">As the site above (not allowed at the top)</option>
        <option value="true">Allowed</option>
        <option value="false">Not allowed</option>
      </select>`}</${Field}>
    <${SiteHoldSettings} form=${form} deadline=${deadline} />
    <${SiteQuietHours} form=${form} />
  </${EditCard}>`
}
