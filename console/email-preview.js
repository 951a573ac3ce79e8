// The HTML part of an email as its recipient sees it, inside the console (issue 25.6). The console's
// Content-Security-Policy allows no inline style or script, so the email's HTML is cleaned by
// DOMPurify (scripts, event handlers, forms, style elements and attributes go; links and data: images
// stay) and shown in a shadow root, where the console's own styles do not reach it.
import DOMPurify from 'dompurify'
import { useEffect, useRef } from 'preact/hooks'
import { html } from './ui.js'

const CLEAN = {
  RETURN_DOM_FRAGMENT: true,
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
  FORBID_ATTR: ['style'],
}

export function RenderedHtml({ html: source }) {
  const host = useRef(null)
  useEffect(() => {
    const el = host.current
    if (!el) return
    const root = el.shadowRoot ?? el.attachShadow({ mode: 'open' })
    root.replaceChildren(DOMPurify.sanitize(source, CLEAN))
  }, [source])
  return html`<div class="preview-rendered" ref=${host} role="document" aria-label="The email as sent"></div>`
}
