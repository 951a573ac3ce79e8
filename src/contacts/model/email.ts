// RFC 5322 §3.4.1 addr-spec in its plain form: a dot-atom local part, "@", a DNS host name with at
// least one dot. No display name, no angle brackets, no comments, no quoted local part, no list:
// the stored text is exactly where mail goes, so nothing a mail library might parse differently
// (issue 26: "Bob <eve@x.org>" and "a@x.org, b@y.org" were accepted and mail went where the parser landed).
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
const ADDR_SPEC = new RegExp(`^${ATEXT}+(?:\\.${ATEXT}+)*@${LABEL}(?:\\.${LABEL})+$`)

/** RFC 5321 §4.5.3.1: 64 octets of local part, 254 in all (the path's 256 less its brackets). */
export function isPlainAddress(s: string): boolean {
  const at = s.lastIndexOf('@')
  return s.length <= 254 && at > 0 && at <= 64 && ADDR_SPEC.test(s)
}

export const PLAIN_ADDRESS_RULE =
  'one plain address (RFC 5322 addr-spec: local@domain.tld; no display name, angle brackets, comments or lists)'
