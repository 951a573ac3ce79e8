import { Type, type Static } from '@sinclair/typebox'

const Suggestion = Type.Object({
  contactId: Type.String(),
  name: Type.String(),
  company: Type.Optional(Type.String()),
  unit: Type.Optional(Type.String()),
  group: Type.Boolean({ description: 'A group contact: business mail for a department or a site.' }),
  score: Type.Number({ minimum: 0, maximum: 1, description: 'How surely the label names this contact, 0–1.' }),
  firstName: Type.String({
    description: 'How the first name matched: name, alias, nickname, initial, similar or none.',
  }),
})

/** What decode-image answers with `read=text`: the label's printed text and the recipient found in it. */
export const LabelAnswerSchema = Type.Object(
  {
    lines: Type.Array(Type.Object({ text: Type.String(), confidence: Type.Integer() }), {
      description: "Every line read, blocks in reading order with '' between blocks; confidence 0–100.",
    }),
    confidence: Type.Integer({ description: "OCR's mean word confidence over the page, 0–100." }),
    retake: Type.Boolean({
      description:
        'True when the photo is worth taking again: the text was read with low confidence (under 60), or no recipient name was found.',
    }),
    error: Type.Optional(
      Type.String({ description: 'The text could not be read (the barcodes above stand); `lines` is empty.' }),
    ),
    shipTo: Type.Optional(
      Type.Object(
        {
          lines: Type.Array(Type.String()),
          nameLine: Type.Optional(Type.String({ description: 'The name as printed: the line to highlight.' })),
          name: Type.Optional(
            Type.Object({ first: Type.String(), middle: Type.Array(Type.String()), last: Type.String() }),
          ),
          company: Type.Optional(Type.String()),
          unit: Type.Optional(Type.String({ description: 'Unit, suite, room or mail stop, without its keyword.' })),
          addressLines: Type.Array(Type.String()),
          foundBy: Type.Union([Type.Literal('marker'), Type.Literal('address'), Type.Literal('barcode')], {
            description:
              'marker: the lines after SHIP TO / TO / DELIVER TO; address: the largest address block; barcode: the ship-to of a 2D barcode (no text block found).',
          }),
        },
        { description: 'The recipient block of the label.' },
      ),
    ),
    recipient: Type.Optional(
      Type.Object(
        {
          chosen: Type.Optional(Suggestion),
          doubt: Type.Optional(
            Type.Union(
              [
                Type.Literal('no_match'),
                Type.Literal('partial_match'),
                Type.Literal('several_matches'),
                Type.Literal('business'),
              ],
              { description: 'Why none was chosen: the reason to open a scan issue with.' },
            ),
          ),
          suggestions: Type.Array(Suggestion, { description: 'The best three, best first.' }),
        },
        {
          description:
            'The directory match. `chosen` only past RECIPIENT_AUTO_ASSIGN_THRESHOLD and ahead of the runner-up by RECIPIENT_AUTO_ASSIGN_MARGIN.',
        },
      ),
    ),
  },
  { description: 'Only with `read=text`.' },
)
export type LabelAnswer = Static<typeof LabelAnswerSchema>
