import { registerErrors } from '../../platform/kit/errors.js'

export const PICKUP_ERRORS = registerErrors({
  PICKUP_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'PCK-4040', message: 'No such pickup.' },
  PICKUP_CODE_GUESSING: {
    status: 429,
    errorCode: 'validation_error',
    additionalCode: 'PCK-4290',
    message: 'Too many wrong pickup codes; retry later.',
  },
})
