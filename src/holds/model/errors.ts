import { registerErrors } from '../../platform/kit/errors.js'

export const HOLD_ERRORS = registerErrors({
  HOLD_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'HLD-4040', message: 'No such hold.' },
  PROPOSAL_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'RTN-4040',
    message: 'No such return proposal.',
  },
  PROPOSAL_DECIDED: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'RTN-4090',
    message: 'The return proposal was already confirmed or dismissed.',
  },
  PACKAGE_NOT_WAITING: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'FWD-4090',
    message: 'The package is not waiting at a site (handed over, returned, forwarded, archived or not arrived).',
  },
})
