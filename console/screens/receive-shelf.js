// Receive files what it saves on shelves (issue 30.1), with the Shelves screen's desk
// (../shelf-scan.js). A shelf label scanned after a save files that save's parcel(s) there (scan
// parcel → scan shelf; also how a parcel is moved); a shelf label scanned with nothing saved since
// the last one starts a run: each parcel saved next is filed there, until another shelf label or
// Done. Filing follows outbox entries, not landings: a save's entries are bound to the shelf they
// are meant for, and each is filed once the server holds it (the outbox may send it later). What
// lands unbound (a retry, what an earlier page left unsent) is filed nowhere.
import { useRef, useState } from 'preact/hooks'
import { html } from '../ui.js'
import { isShelfCode, logLine, ShelfDeskStatus, useShelfDesk } from '../shelf-scan.js'

export { isShelfCode }

/** One outbox entry of a save: its seq and the number the clerk knows it by. */
const numbers = (entries) => entries.map((e) => e.trackingNumber)

export function useReceiveShelf({ say }) {
  const desk = useShelfDesk()
  // The outbox calls back from the render it was made in: the desk it files with is the latest.
  const latest = useRef(desk)
  latest.current = desk
  // Read and written as they are now (an outbox landing, a shelf look-up and a save interleave), so
  // refs; `redraw` shows them.
  const s = useRef({
    save: [], // the last save's entries, not yet given a shelf
    underway: undefined, // a Save whose entries are still being written to the outbox
    landed: new Map(), // seq → packageId, for each entry this page saw the server answer
    bound: new Map(), // seq → shelf: filed there as soon as it lands
    run: null, // the shelf every entry saved from now on is bound to
  }).current
  const [, redraw] = useState(0)
  const changed = () => redraw((n) => n + 1)

  const fileNow = async (shelf, entries) => {
    const d = latest.current
    try {
      const results = await d.file(
        shelf,
        entries.map((e) => s.landed.get(e.seq)),
      )
      say(results.map((r) => logLine({ ...r, shelf: shelf.name })).join(' '))
    } catch (err) {
      d.failed(err)
      say(`Not filed on ${shelf.name}: ${err.message}`)
      // They wait for a shelf label again.
      s.save = [...s.save, ...entries]
      changed()
    }
  }
  /** Those the server holds are filed now, the others as each lands. */
  const bind = (shelf, entries) => {
    const now = entries.filter((e) => s.landed.has(e.seq))
    for (const e of entries) if (!s.landed.has(e.seq)) s.bound.set(e.seq, shelf)
    if (now.length > 0) void fileNow(shelf, now)
    changed()
  }

  const afterSave = useRef((res, entry) => {
    s.landed.set(entry.seq, res.packageId)
    const shelf = s.bound.get(entry.seq)
    if (!shelf) return changed()
    s.bound.delete(entry.seq)
    void fileNow(shelf, [{ seq: entry.seq, trackingNumber: res.trackingNumber ?? entry.trackingNumber }])
  }).current

  const scanShelf = async (code) => {
    const d = latest.current
    d.setError(null)
    // A Save pressed just before the label: its parcels are the ones this label files.
    const saving = s.underway
    let shelf
    try {
      shelf = await d.lookUp(code.trim())
    } catch (err) {
      return d.failed(err, code.trim())
    }
    await saving
    if (s.save.length > 0) {
      const entries = s.save
      s.save = []
      s.run = null
      latest.current.setRun(null)
      bind(shelf, entries)
    } else {
      s.run = shelf
      latest.current.setRun(shelf)
      changed()
    }
  }

  return {
    desk,
    waiting: numbers(s.save),
    unsent: s.bound.size,
    afterSave,
    scanShelf,
    /**
     * A Save (one parcel or a bulk list) begins: what it writes to the outbox replaces the parcels
     * waiting from an earlier save, or joins the run. Call what it answers with the entries written.
     */
    saving() {
      if (!s.run) s.save = []
      let written
      s.underway = new Promise((resolve) => (written = resolve))
      return (entries) => {
        if (s.run) bind(s.run, entries)
        else s.save = entries
        s.underway = undefined
        written()
        changed()
      }
    },
    done() {
      s.run = null
      s.save = []
      latest.current.done()
      changed()
    },
  }
}

/** What the desk holds (a run, parcels waiting for a label) and what was filed; nothing until it is used. */
export function ReceiveShelf({ shelf, backToScan }) {
  const { desk, waiting, unsent } = shelf
  if (!desk.run && waiting.length === 0 && unsent === 0 && desk.log.length === 0 && !desk.error) return null
  return html`<section class="receive-shelf" aria-label="Filing on shelves">
    <${ShelfDeskStatus} desk=${{ ...desk, pending: waiting }} />
    ${
      unsent > 0 &&
      html`<p data-testid="shelf-unsent">
        ${`${unsent} parcel${unsent === 1 ? '' : 's'} to be filed once the server has ${unsent === 1 ? 'it' : 'them'}.`}
      </p>`
    }
    ${
      (desk.run || waiting.length > 0) &&
      html`<button
        type="button"
        class="secondary"
        onClick=${() => {
          shelf.done()
          backToScan()
        }}
      >
        Done filing
      </button>`
    }
  </section>`
}
