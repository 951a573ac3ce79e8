// The `smpp` package (farhadi/node-smpp) ships no types: the part of its API this domain uses.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events'
  import type { Server as NetServer } from 'node:net'

  export interface PDU {
    command: string
    command_status: number
    sequence_number: number
    [param: string]: unknown
    response(params?: Record<string, unknown>): PDU
  }
  export interface Session extends EventEmitter {
    send(pdu: PDU, responseCallback?: (pdu: PDU) => void): boolean
    bind_transceiver(params: Record<string, unknown>, callback: (pdu: PDU) => void): void
    /** False: the socket was not writable, nothing was sent. */
    submit_sm(params: Record<string, unknown>, callback: (pdu: PDU) => void): boolean
    deliver_sm(params: Record<string, unknown>, callback?: (pdu: PDU) => void): void
    pause(): void
    resume(): void
    close(callback?: () => void): void
    destroy(callback?: () => void): void
  }
  export interface Server extends NetServer {
    sessions: Session[]
  }
  export function connect(options: Record<string, unknown>, listener?: () => void): Session
  export function createServer(listener: (session: Session) => void): Server
  const smpp: { connect: typeof connect; createServer: typeof createServer; ESME_ROK: number; [code: string]: unknown }
  export default smpp
}
