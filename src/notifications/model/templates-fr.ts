import type { NotificationKind } from './kinds.js'
import type { Template } from './templates.js'

// The shipped French templates: the English ones (templates.ts) in French, with the same variables.

const PARCEL_LINES_TEXT = `{{#packages}}
- {{trackingNumber}}{{#carrier}} ({{carrier}}){{/carrier}}{{#sender}}, de {{sender}}{{/sender}}{{#location}}, à {{location}}{{/location}}{{#packageLocation}} / {{packageLocation}}{{/packageLocation}}{{#flags}} [{{flags}}]{{/flags}}
{{/packages}}`
const PARCEL_LINES_HTML = `<ul>{{#packages}}<li><strong>{{trackingNumber}}</strong>{{#carrier}} ({{carrier}}){{/carrier}}{{#sender}}, de {{sender}}{{/sender}}{{#location}}, à {{location}}{{/location}}{{#packageLocation}} / {{packageLocation}}{{/packageLocation}}{{#flags}} <strong>[{{flags}}]</strong>{{/flags}}</li>{{/packages}}</ul>`
const CODE_TEXT = `{{#pickupCode}}
Votre code de retrait : {{pickupCode}}
{{/pickupCode}}`
const CODE_HTML = `{{#pickupCode}}<p>Votre code de retrait : <strong style="font-size:1.4em;letter-spacing:.1em">{{pickupCode}}</strong></p><p><img src="{{qrCodeSrc}}" alt="QR code du code de retrait {{pickupCode}}" width="160" height="160"></p>{{/pickupCode}}`
const PERISHABLE_TEXT = `{{#perishable}}
Périssable : merci de le retirer au plus vite.
{{/perishable}}`
const PERISHABLE_HTML = `{{#perishable}}<p><strong>Périssable : merci de le retirer au plus vite.</strong></p>{{/perishable}}`
const HOURS_TEXT = `{{#openingHours}}
Horaires d’ouverture : {{openingHours}}
{{/openingHours}}`
const HOURS_HTML = `{{#openingHours}}<p>Horaires d’ouverture : {{openingHours}}</p>{{/openingHours}}`
const FOOTER_TEXT = `
--
Vous recevez ce message parce que vous êtes destinataire de ce service courrier. Se désabonner : {{unsubscribeUrl}}
`
const FOOTER_HTML = `<hr><p style="font-size:.85em;color:#555">Vous recevez ce message parce que vous êtes destinataire de ce service courrier. <a href="{{unsubscribeUrl}}">Se désabonner</a></p>`
const page = (body: string) =>
  `<!doctype html><html lang="fr"><body style="font-family:sans-serif;line-height:1.4">${body}${FOOTER_HTML}</body></html>`

export const FRENCH_TEMPLATES: Readonly<Record<NotificationKind, Template>> = {
  ARRIVAL: {
    subject:
      '{{#one}}Un colis vous attend{{/one}}{{^one}}{{count}} colis vous attendent{{/one}}{{#siteName}} à {{siteName}}{{/siteName}}',
    text: `Bonjour {{recipientName}},

{{#one}}Un colis est arrivé{{/one}}{{^one}}{{count}} colis sont arrivés{{/one}} pour vous :
${PARCEL_LINES_TEXT}${PERISHABLE_TEXT}${HOURS_TEXT}${CODE_TEXT}
Merci de {{#one}}le{{/one}}{{^one}}les{{/one}} retirer{{#siteName}} à {{siteName}}{{/siteName}}.
${FOOTER_TEXT}`,
    html: page(
      `<p>Bonjour {{recipientName}},</p><p>{{#one}}Un colis est arrivé{{/one}}{{^one}}{{count}} colis sont arrivés{{/one}} pour vous :</p>${PARCEL_LINES_HTML}${PERISHABLE_HTML}${HOURS_HTML}${CODE_HTML}<p>Merci de {{#one}}le{{/one}}{{^one}}les{{/one}} retirer{{#siteName}} à {{siteName}}{{/siteName}}.</p>`,
    ),
  },
  REMINDER: {
    subject: 'Rappel : {{#one}}un colis vous attend{{/one}}{{^one}}{{count}} colis vous attendent{{/one}} toujours',
    text: `Bonjour {{recipientName}},

{{#one}}Ce colis vous attend{{/one}}{{^one}}Ces colis vous attendent{{/one}} toujours (depuis {{hoursWaiting}} heures) :
${PARCEL_LINES_TEXT}${PERISHABLE_TEXT}${HOURS_TEXT}${CODE_TEXT}${FOOTER_TEXT}`,
    html: page(
      `<p>Bonjour {{recipientName}},</p><p>{{#one}}Ce colis vous attend{{/one}}{{^one}}Ces colis vous attendent{{/one}} toujours (depuis {{hoursWaiting}} heures) :</p>${PARCEL_LINES_HTML}${PERISHABLE_HTML}${HOURS_HTML}${CODE_HTML}`,
    ),
  },
  FINAL_NOTICE: {
    subject:
      'Dernier avis : {{#one}}un colis sera renvoyé{{/one}}{{^one}}{{count}} colis seront renvoyés{{/one}} à l’expéditeur',
    text: `Bonjour {{recipientName}},

{{#one}}Ce colis n’a pas été retiré et sera bientôt renvoyé{{/one}}{{^one}}Ces colis n’ont pas été retirés et seront bientôt renvoyés{{/one}} à l’expéditeur :
${PARCEL_LINES_TEXT}${PERISHABLE_TEXT}${HOURS_TEXT}${CODE_TEXT}${FOOTER_TEXT}`,
    html: page(
      `<p>Bonjour {{recipientName}},</p><p>{{#one}}Ce colis n’a pas été retiré et sera bientôt renvoyé{{/one}}{{^one}}Ces colis n’ont pas été retirés et seront bientôt renvoyés{{/one}} à l’expéditeur :</p>${PARCEL_LINES_HTML}${PERISHABLE_HTML}${HOURS_HTML}${CODE_HTML}`,
    ),
  },
  PICKED_UP: {
    subject: '{{#one}}Votre colis a été retiré{{/one}}{{^one}}Vos {{count}} colis ont été retirés{{/one}}',
    text: `Bonjour {{recipientName}},

{{#one}}Ce colis a été retiré{{/one}}{{^one}}Ces colis ont été retirés{{/one}}{{#collectedBy}} par {{collectedBy}}{{#onBehalf}} en votre nom{{/onBehalf}}{{/collectedBy}} le {{collectedAt}}{{#siteName}} à {{siteName}}{{/siteName}} :
${PARCEL_LINES_TEXT}
Si ce n’était pas vous, merci de contacter le service courrier.
${FOOTER_TEXT}`,
    html: page(
      `<p>Bonjour {{recipientName}},</p><p>{{#one}}Ce colis a été retiré{{/one}}{{^one}}Ces colis ont été retirés{{/one}}{{#collectedBy}} par <strong>{{collectedBy}}</strong>{{#onBehalf}} en votre nom{{/onBehalf}}{{/collectedBy}} le {{collectedAt}}{{#siteName}} à {{siteName}}{{/siteName}} :</p>${PARCEL_LINES_HTML}<p>Si ce n’était pas vous, merci de contacter le service courrier.</p>`,
    ),
  },
}
