import { registerErrors } from '../../platform/kit/errors.js'

export const NOTIFICATION_ERRORS = registerErrors({
  NOTIFICATION_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'NTF-4040',
    message: 'No such notification.',
  },
  NOTIFICATION_SENDING: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'NTF-4090',
    message: 'This notification is being sent right now; ask again once it is sent or failed.',
  },
  UNSUBSCRIBE_LINK_INVALID: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'NTF-4001',
    message: 'This unsubscribe link is not valid.',
  },
  NOTIFICATION_CONTACT_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'NTF-4041',
    message: 'No such contact.',
  },
  SMS_WEBHOOK_REFUSED: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'NTF-4042',
    message: 'No such SMS webhook, or its signature does not match.',
  },
})
