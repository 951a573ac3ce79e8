import { registerErrors } from '../../platform/kit/errors.js'

export const CLIENT_ERRORS = registerErrors({
  CLIENT_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'CLI-4040',
    message: 'No such API client.',
  },
})
