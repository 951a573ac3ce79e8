// Receive's outbox as a hook: what waits to be sent (queue), what the server holds (saved, the
// last twenty), and the sending itself: on opening the screen (what an earlier page or browser
// left unsent goes first), every RETRY_MS while something waits, and at once when the browser is
// back online. A save of a label photo with no recipient then opens its scan issue; `afterSave`
// hears of each parcel the server holds, with its outbox entry (receive-shelf.js files it if a
// shelf was meant for that entry).
import { useEffect, useState } from 'preact/hooks'
import { queued, sendQueued } from '../outbox.js'
import { openScanIssue } from './receive-label.js'

/** How often a queue that is waiting tries the server again (and at once when the browser is back online). */
const RETRY_MS = 5_000

export function useReceiveOutbox({ owner, say, setError, afterSave }) {
  const [saved, setSaved] = useState([])
  const [queue, setQueue] = useState([])

  const refresh = async () => setQueue(await queued(owner))
  const onSaved = (res, entry) => {
    const tn = res.trackingNumber ?? entry.trackingNumber
    setSaved((s) =>
      [{ packageId: res.packageId, trackingNumber: tn, recipient: entry.recipient?.label ?? '' }, ...s].slice(0, 20),
    )
    say(`Saved ${tn}.`)
    afterSave?.(res, entry)
    openScanIssue(res, entry).then(
      () =>
        entry.scanIssue && !entry.recipient && say(`Saved ${tn}; it waits in the scan-issues queue for its recipient.`),
      (err) => setError(new Error(`Saved ${tn}, but it could not be put in the scan-issues queue: ${err.message}`)),
    )
  }
  const flush = async () => {
    await sendQueued(owner, onSaved).catch(() => false)
    await refresh()
  }

  useEffect(() => {
    void flush()
    const online = () => void flush()
    window.addEventListener('online', online)
    const timer = setInterval(() => void flush(), RETRY_MS)
    return () => {
      window.removeEventListener('online', online)
      clearInterval(timer)
    }
  }, [])

  return { saved, queue, refresh, flush }
}
