// How an email names a parcel's flags (the packages domain's vocabulary, issue 30), per shipped
// language; another language reads the English words. A flag not listed here is shown as it is.
const LABELS: Record<string, Record<string, string>> = {
  en: {
    PERISHABLE: 'perishable',
    MEDICATION: 'medication',
    OVERSIZE: 'oversize',
    SIGNATURE_REQUIRED: 'signature required',
    FRAGILE: 'fragile',
  },
  fr: {
    PERISHABLE: 'périssable',
    MEDICATION: 'médicament',
    OVERSIZE: 'hors gabarit',
    SIGNATURE_REQUIRED: 'signature requise',
    FRAGILE: 'fragile',
  },
}

/** The flags of one parcel as its email line shows them ("perishable, fragile"); '' for none. */
export function flagWords(flags: readonly string[] | undefined, language: string): string {
  const words = LABELS[language] ?? LABELS.en!
  return (flags ?? []).map((f) => words[f] ?? f).join(', ')
}
