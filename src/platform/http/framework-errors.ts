import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { lookupError, type ErrorCode } from '../kit/errors.js'
import { errorItem } from './error-handler.js'

/**
 * Errors Fastify or Node answer before a route runs, in the one error model (CONTRACT §1): a URL
 * that is not valid percent-encoding or a path parameter past find-my-way's length (Fastify's
 * `frameworkErrors`), and what Node's HTTP parser refuses (oversized headers, a malformed request,
 * a timeout) through the server's `clientError`, where no request object exists yet.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // An interface with an error model of its own (SCIM under /scim/v2) answers in it: its clients
  // read only that shape and media type.
  const own = ownAnswers.find((a) => request.url.startsWith(a.prefix))
  if (own) {
    request.log.info({ err: { code: error.code, message: error.message } }, 'request refused')
    own.answer(
      reply.header('x-correlation-id', request.id),
      error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400,
      'The request URL is not valid.',
    )
    return
  }
  const code: ErrorCode =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'PATH_TOO_LONG'
      : error.code === 'FST_ERR_BAD_URL'
        ? 'BAD_URL'
        : 'VALIDATION_FAILED'
  request.log.info({ err: { code: error.code, message: error.message } }, 'request refused')
  void reply
    .code(lookupError(code).status)
    .header('x-correlation-id', request.id)
    .type('application/json; charset=utf-8')
    .send({ errors: [errorItem(code, request.id)] })
}

type OwnAnswer = (reply: FastifyReply, status: number, detail: string) => unknown
const ownAnswers: Array<{ prefix: string; answer: OwnAnswer }> = []

/**
 * Makes the framework's refusals of URLs under `prefix` answer through `answer` (an interface with
 * an error model of its own). Process-wide, as the routes it serves: registering a prefix again
 * replaces its answer.
 */
export function answerFrameworkErrorsUnder(prefix: string, answer: OwnAnswer): void {
  const i = ownAnswers.findIndex((a) => a.prefix === prefix)
  if (i >= 0) ownAnswers.splice(i, 1)
  ownAnswers.push({ prefix, answer })
}

export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer (Node's own handler does the same).
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const code: ErrorCode =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'HEADERS_TOO_LARGE'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : 'MALFORMED_REQUEST'
  const status = lookupError(code).status
  const id = randomUUID()
  this.log.info(
    { err: { code: err.code, message: err.message }, correlationID: id },
    'request refused by the HTTP parser',
  )
  const body = JSON.stringify({ errors: [errorItem(code, id)] })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Correlation-ID: ${id}\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy(err)
}

/**
 * Requests that reach a closing server (pipelined, or on a busy keep-alive connection) get a 503 in
 * the error model and `Connection: close`; Fastify's own `return503OnClosing` answers in its shape.
 */
export function registerClosingAnswer(app: FastifyInstance): void {
  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })
  app.addHook('onRequest', (request, reply, done) => {
    if (!closing) return done()
    void reply
      .code(503)
      .header('connection', 'close')
      .send({
        errors: [
          errorItem('SERVICE_UNAVAILABLE', request.id, {
            description: 'The service is shutting down; retry on another instance.',
          }),
        ],
      })
  })
}
