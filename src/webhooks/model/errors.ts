import { registerErrors } from '../../platform/kit/errors.js'

export const WEBHOOK_ERRORS = registerErrors({
  WEBHOOK_CONFIG_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'WHK-4040',
    message: 'No such webhook configuration.',
  },
  WEBHOOK_DELIVERY_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'WHK-4041',
    message: 'No such delivery of this webhook configuration.',
  },
  WEBHOOK_URL_REFUSED: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'WHK-4001',
    message: 'The URL is refused: webhooks go to public addresses only.',
  },
  WEBHOOK_AUTH_INVALID: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'WHK-4002',
    message: 'authParams is incomplete or invalid for its authType.',
  },
  WEBHOOK_CONFIG_INACTIVE: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'WHK-4090',
    message: 'The webhook configuration is in-active; set its status to active first.',
  },
  WEBHOOK_DELIVERY_DELIVERED: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'WHK-4091',
    message: 'The delivery was already delivered; there is nothing to retry.',
  },
})
