import { registerErrors } from '../../platform/kit/errors.js'

export const USER_ERRORS = registerErrors({
  USER_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'USR-4040', message: 'No such user.' },
  USER_EMAIL_EXISTS: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'USR-4090',
    message: 'A user already has this email (emails are unique across the installation: sign-in asks only for it).',
  },
  SESSION_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'USR-4041',
    message: 'No such session of the signed-in user.',
  },
})
